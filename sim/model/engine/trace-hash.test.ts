import { hash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, entryBytes, Trace } from './trace.ts';

interface Entry {
  at: number;
  kind: string;
  detail: unknown;
}

/** The obvious computation, and the trace's hash until blocks: one SHA-256 per entry over the previous hash, index, time, kind and JSON. */
function referenceHash(entries: readonly Entry[]): string {
  let rolling = '0'.repeat(64);
  entries.forEach((e, index) => {
    rolling = hash('sha256', `${rolling}|${index}|${e.at}|${e.kind}|${canonicalJson(e.detail)}`, 'hex');
  });
  return rolling;
}

function traceHash(entries: readonly Entry[], block?: number): string {
  const t = new Trace(10, block);
  for (const e of entries) t.append(e.at, e.kind, e.detail);
  return t.hash;
}

/** Reads entryBytes back: the stream decodes into the entries it came from, so the encoding is injective. */
function decode(stream: string): Entry[] {
  const out: Entry[] = [];
  let i = 0;
  while (i < stream.length) {
    const quote = stream.indexOf('"', i);
    let end = quote + 1;
    while (quote >= 0 && end < stream.length && stream[end] !== '"') end += stream[end] === '\\' ? 2 : 1;
    const newline = stream.indexOf('\n', end);
    if (quote < 0 || newline < 0) throw new Error(`not an entry at ${i}: ${JSON.stringify(stream.slice(i))}`);
    out.push({
      at: Number(stream.slice(i, quote)),
      kind: JSON.parse(stream.slice(quote, end + 1)) as string,
      detail: JSON.parse(stream.slice(end + 1, newline)) as unknown,
    });
    i = newline + 1;
  }
  return out;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const json = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
  node: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie('node'), { maxKeys: 4 }),
  ),
})).node;
const at = fc.oneof(fc.nat(), fc.double({ min: 0, max: 1e15, noNaN: true }));
/** Kinds and details of a small alphabet, so that equal entries (and near misses) come up often. */
const smallEntry = fc.record({
  at: fc.integer({ min: 0, max: 3 }),
  kind: fc.constantFrom('a', 'b', 'a|0', '"', '\n'),
  detail: fc.oneof(
    fc.constant(null),
    fc.integer({ min: 0, max: 2 }),
    fc.constantFrom('x', 'x"', '|'),
    fc.dictionary(fc.constantFrom('k', 'j'), fc.integer({ min: 0, max: 1 })),
  ),
});
const richEntry = fc.record({ at, kind: fc.string({ maxLength: 6, unit: 'binary' }), detail: json });
const blockSize = fc.integer({ min: 1, max: 6 });

describe('trace hash over blocks', () => {
  it('decodes its byte stream back into the entries, for any kind (quotes, newlines, lone surrogates) and JSON detail', () => {
    fc.assert(
      fc.property(fc.array(richEntry, { maxLength: 8 }), (entries) => {
        const stream = entries.map((e) => entryBytes(e.at, e.kind, e.detail)).join('');
        // Well-formed UTF-16, so the UTF-8 that SHA-256 reads is one-to-one with the string.
        expect(LONE_SURROGATE.test(stream)).toBe(false);
        const canonical = entries.map((e) => ({
          at: e.at === 0 ? 0 : e.at,
          kind: e.kind,
          detail: JSON.parse(canonicalJson(e.detail)) as unknown,
        }));
        expect(decode(stream)).toEqual(canonical);
      }),
      { numRuns: 3000 },
    );
  });

  it('gives one hash to one sequence, whatever the block size, the reads in between or the key order', () => {
    fc.assert(
      fc.property(fc.array(richEntry, { maxLength: 20 }), blockSize, fc.array(fc.nat(20)), (entries, block, reads) => {
        const t = new Trace(3, block);
        entries.forEach((e, i) => {
          t.append(e.at, e.kind, e.detail);
          if (reads.includes(i)) expect(t.hash).toBe(traceHash(entries.slice(0, i + 1), block));
        });
        expect(t.hash).toBe(traceHash(entries, block));
        const reordered = entries.map((e) => ({ ...e, detail: reverseKeys(e.detail) }));
        expect(traceHash(reordered, block)).toBe(t.hash);
      }),
      { numRuns: 2000 },
    );
  });

  it('changes whenever the per-entry reference chain changes: one entry changed, added or dropped', () => {
    const edit = fc.oneof(
      fc.record({ op: fc.constant('set' as const), entry: smallEntry }),
      fc.record({ op: fc.constant('insert' as const), entry: smallEntry }),
      fc.record({ op: fc.constant('drop' as const) }),
    );
    fc.assert(
      fc.property(fc.array(smallEntry, { maxLength: 16 }), fc.nat(16), edit, blockSize, (entries, where, change, block) => {
        const b = entries.slice();
        const i = Math.min(where, b.length);
        if (change.op === 'set') b[i] = change.entry;
        else if (change.op === 'insert') b.splice(i, 0, change.entry);
        else b.splice(i, 1);
        const referenceSame = referenceHash(entries) === referenceHash(b);
        expect(traceHash(entries, block) === traceHash(b, block)).toBe(referenceSame);
        expect(referenceSame).toBe(canonicalJson(entries) === canonicalJson(b));
      }),
      { numRuns: 5000 },
    );
  });

  it('tells apart any two sequences the reference tells apart, across block edges of the default size', () => {
    fc.assert(
      fc.property(
        fc.array(smallEntry, { maxLength: 4 }),
        fc.array(smallEntry, { maxLength: 4 }),
        fc.integer({ min: 250, max: 520 }),
        (x, y, length) => {
          const fill = (tail: Entry[]): Entry[] => [...Array.from({ length }, (_, i) => ({ at: i, kind: 'fill', detail: { i } })), ...tail];
          const [a, b] = [fill(x), fill(y)];
          expect(traceHash(a) === traceHash(b)).toBe(referenceHash(a) === referenceHash(b));
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** The same value with every object's keys inserted in reverse order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).reverse()) out[k] = reverseKeys((value as Record<string, unknown>)[k]);
  return out;
}
