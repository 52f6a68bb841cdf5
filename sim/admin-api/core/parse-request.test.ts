import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyBytes, parseJsonBody } from './parse-request.ts';

/** The reference: a string body taken as its UTF-8 bytes, decoded back as a listener decodes them. */
function throughBytes(body: string): { size: number; text: string } {
  const bytes = Buffer.from(body, 'utf8');
  return { size: bytes.length, text: bytes.toString('utf8') };
}

describe('bodyBytes', () => {
  it('gives a string body the size and text of its UTF-8 bytes (lone surrogates, astral characters, ASCII)', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string(), fc.json());
    fc.assert(
      fc.property(text, (s) => {
        const got = bodyBytes(s);
        expect({ size: got.size, text: got.text() }).toEqual(throughBytes(s));
      }),
      { numRuns: 5_000 },
    );
    expect(bodyBytes('\uD800x').text()).toBe('\uFFFDx');
    expect(bodyBytes('é').size).toBe(2);
  });

  it('gives a Buffer body its length and its UTF-8 decoding', () => {
    const raw = Buffer.from([0x7b, 0x7d, 0xff]);
    expect(bodyBytes(raw).size).toBe(3);
    expect(bodyBytes(raw).text()).toBe(raw.toString('utf8'));
  });
});

describe('parseJsonBody', () => {
  it('reads an empty or blank body as none, refuses deep nesting and invalid JSON', () => {
    expect(parseJsonBody(undefined)).toEqual({ ok: true, value: undefined });
    expect(parseJsonBody('  \n')).toEqual({ ok: true, value: undefined });
    expect(parseJsonBody('{"a":[1]}')).toEqual({ ok: true, value: { a: [1] } });
    expect(parseJsonBody('['.repeat(65) + ']'.repeat(65))).toEqual({ ok: false, message: 'request body is nested deeper than 64 levels' });
    expect(parseJsonBody('{').ok).toBe(false);
  });
});
