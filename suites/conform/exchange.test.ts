import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { curlOf, REPORTED_BODY_LIMIT, reportedBody, RUN, runsOf, type Exchange } from './exchange.ts';

/** An exchange as ExchangeLog makes it, for a POST of `body`. */
function posted(body: unknown, rawBody?: string): Exchange {
  return {
    purpose: 'check',
    sent: { method: 'POST', path: '/api/cluster/tenant/create', ...(rawBody !== undefined ? { rawBody } : { body }) },
    record: { method: 'POST', path: '/api/cluster/tenant/create', body: reportedBody(rawBody ?? body), authorization: 'token' },
    durationMs: 1,
  };
}

/** What the body part of a curl command sends: its printf run by bash (or its --data-raw text). */
function bodyOfCurl(curl: string): string {
  const pipe = curl.indexOf(' | curl ');
  if (pipe < 0) return execFileSync('bash', ['-c', `printf '%s' ${curl.slice(curl.indexOf('--data-raw ') + 11)}`]).toString();
  return execFileSync('bash', ['-c', curl.slice(0, pipe)], { maxBuffer: 16 * 1024 * 1024 }).toString();
}

describe('request bodies in the report', () => {
  it('are kept as sent up to the limit', () => {
    const body = { tenant_name: 't', desc: 'x'.repeat(4097) };
    expect(reportedBody(body)).toEqual(body);
    const curl = curlOf('http://h:1', posted(body));
    expect(curl).toContain(`--data-raw '${JSON.stringify(body)}'`);
    expect(bodyOfCurl(curl)).toBe(JSON.stringify(body));
  });

  it('above it keep their long runs as a count, and the curl command rebuilds the exact body', () => {
    const body = { tenant_name: "conform-1-big's", desc: 'x'.repeat(2 * 1024 * 1024 + 1), other: '-'.repeat(300) };
    const kept = reportedBody(body) as Record<string, string>;
    expect(kept.tenant_name).toBe("conform-1-big's");
    expect(kept.desc).toBe('xxxxxxxx…[2097153 × "x"]');
    expect(kept.other).toBe('--------…[300 × "-"]');
    expect(JSON.stringify(kept).length).toBeLessThan(200);
    const curl = curlOf('http://h:1', posted(body));
    expect(curl.length).toBeLessThan(400);
    expect(curl).toMatch(/^printf '%s' .* \| curl -sS -X POST 'http:\/\/h:1\/api\/cluster\/tenant\/create' .* --data-binary @-$/);
    expect(bodyOfCurl(curl)).toBe(JSON.stringify(body));
  });

  it('cut what no run explains, and say so', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(' ');
    const kept = reportedBody(text) as string;
    expect(kept.length).toBeLessThan(REPORTED_BODY_LIMIT + 100);
    expect(kept).toMatch(new RegExp(`… \\(cut: ${text.length} characters\\)$`));
    const curl = curlOf('http://h:1', posted(undefined, text));
    expect(curl).toMatch(new RegExp(`# the body \\(${text.length} characters\\) is cut here: replay the run to send it$`));
  });
});

describe('runsOf', () => {
  /** What the regular expression finds: the obvious statement of a run. */
  const byRegExp = (text: string) => [...text.matchAll(RUN)].map((m) => ({ index: m.index, length: m[0].length, ch: m[1] }));
  /** Texts of runs around the 256 threshold, of characters in and out of RUN's class (backslash, control, non-ASCII). */
  const texts = fc
    .array(
      fc.tuple(
        fc.constantFrom('x', ' ', '~', '[', ']', '\\', '\n', 'é', '😀', 'a', 'b'),
        fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 250, max: 262 }), fc.integer({ min: 0, max: 600 })),
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.map(([ch, n]) => ch.repeat(n)).join(''));

  it('finds exactly the runs the regular expression matches', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(runsOf(text)).toEqual(byRegExp(text));
      }),
      { numRuns: 500 },
    );
  });

  it('finds the run of a 2 MiB body without a per-character back-reference', () => {
    const body = `{"name":"${'x'.repeat(2 * 1024 * 1024 + 1)}"}`;
    expect(runsOf(body)).toEqual([{ index: 9, length: 2 * 1024 * 1024 + 1, ch: 'x' }]);
  });
});
