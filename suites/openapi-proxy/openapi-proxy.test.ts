import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT } from '../../contract/index.ts';
import { toOpenApi } from '../../contract/to-openapi.ts';
import { conformThroughProxy, type ProxiedRun } from './conform-through-proxy.ts';
import { startPrismProxy } from './prism-proxy.ts';
import { replayThroughProxy } from './replay-upstream.ts';
import { summarizeViolations, violationLine, type ViolationSummary } from './violation-summary.ts';
import { SimTarget } from '../targets/sim-target.ts';
import type { TargetRequest } from '../targets/target.ts';
import { ViolationRecordingTarget, type ProxiedExchange } from './violation-recording-target.ts';

/**
 * The published OpenAPI document (`mqsim openapi`) tells the truth about `mqsim serve`: every answer
 * the simulator gives to the conformance suites, seen through Stoplight Prism's validation proxy
 * (`prism proxy`) with that document, matches it.
 *
 * What is covered: in envelope form A (the default of `mqsim serve`) the whole conformance run
 * (per-endpoint checks, family scenarios, property-based suites); in form B the per-endpoint checks
 * and scenarios. Both with the simulator's control interface, so node stops, a readiness probe that
 * is not ready, a stopped mq9 component and connectors that are not running are answered through
 * the proxy. What is not: answers Prism cannot route (a wrong method) are forwarded but not checked;
 * and through the proxy the simulator sees every request come from 127.0.0.1, a peer the spec
 * exempts from tokens, so the suites' auth checks skip and no token refusal (HTTP 401 with code 401)
 * is seen (login with wrong credentials is). Those refusals, and the 413 and 415 refusals the suites
 * do not provoke, are taken from the simulator directly and fed through Prism (third test).
 *
 * Requests: the suites send invalid requests on purpose (missing, out-of-range or unknown
 * parameters) to see them refused; Prism reports those as `request` violations and, with
 * `--errors false`, still forwards them. Only `response` violations count against the document.
 */

/** Ten virtual minutes of demo history: enough for every check (monitor series, bans), faster to start than an hour. */
const WARM_UP_MS = 600_000;

const dir = mkdtempSync(join(tmpdir(), 'mqsim-openapi-proxy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let formA: ProxiedRun;

function describeRun(label: string, run: ProxiedRun, summary: ViolationSummary): string {
  const lines = [
    `openapi proxy, ${label}: ${violationLine(summary)}; start ${(run.startMs / 1000).toFixed(1)} s, suites ${(run.suitesMs / 1000).toFixed(1)} s`,
  ];
  lines.push(...summary.endpoints.map((e) => `  ${e.endpoint}: ${e.answers}`), ...summary.samples.map((s) => `  ${s}`));
  return lines.join('\n');
}

beforeAll(async () => {
  const document = join(dir, 'openapi.json');
  writeFileSync(document, JSON.stringify(toOpenApi(CONTRACT)));
  formA = await conformThroughProxy({ document, seed: 1, warmUpMs: WARM_UP_MS });
}, 300_000);

/** Answers with HTTP 200 and a failure envelope (`code` not 0): the business failures. */
function failuresAt200(exchanges: readonly ProxiedExchange[]): number[] {
  const found: number[] = [];
  exchanges.forEach((x, i) => {
    if (x.answer.status !== 200 || !x.answer.contentType?.startsWith('application/json')) return;
    const code = (JSON.parse(x.answer.body) as { code?: unknown }).code;
    if (code !== 0) found.push(i);
  });
  return found;
}

/**
 * The document as it was before part 6 of issue 11: each 200 answer allows only a success envelope
 * (`code` 0). Built from the truthful document by dropping the failure alternative of every 200.
 */
function withOnlySuccessAt200(document: Record<string, any>): Record<string, any> {
  const strict = structuredClone(document);
  for (const item of Object.values(strict.paths as Record<string, Record<string, any>>)) {
    for (const op of Object.values(item)) {
      const json = op.responses?.['200']?.content?.['application/json'];
      const alternatives = json?.schema?.oneOf as unknown[] | undefined;
      if (
        alternatives?.length === 2 &&
        JSON.stringify(alternatives[1]) === JSON.stringify({ $ref: '#/components/schemas/FailureEnvelope' })
      )
        json.schema = alternatives[0];
    }
  }
  return strict;
}

describe('mqsim openapi against mqsim serve, through prism proxy', () => {
  it('no answer to the conformance suites breaks the document (envelope form A, every suite)', () => {
    const summary = summarizeViolations(formA.exchanges);
    console.log(describeRun('envelope A', formA, summary));
    expect(formA.report.vacuous).toBe(false);
    // The run went through the proxy for real: thousands of answers, business failures among them.
    expect(summary.answers).toBeGreaterThan(1000);
    expect(failuresAt200(formA.exchanges).length).toBeGreaterThan(0);
    expect(summary.withResponseViolations, summary.samples.join('\n')).toBe(0);
  });

  it('can fail: the same traffic breaks a document whose 200 answers allow only code 0', async () => {
    const document = join(dir, 'openapi-only-success-at-200.json');
    writeFileSync(document, JSON.stringify(withOnlySuccessAt200(toOpenApi(CONTRACT))));
    const started = performance.now();
    const violations = await replayThroughProxy(formA.exchanges, (upstream) => startPrismProxy({ document, upstream }));
    const strict = summarizeViolations(formA.exchanges, violations);
    console.log(
      `openapi proxy, the same answers against a document whose 200 allows only code 0: ${violationLine(strict)}; replay ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    // Exactly the business failures break it, and nothing else: the replay gave the same answers.
    const broken = violations.flatMap((v, i) => (v.response.length > 0 ? [i] : []));
    expect(broken).toEqual(failuresAt200(formA.exchanges));
    expect(strict.withResponseViolations).toBeGreaterThan(0);
  }, 120_000);

  it('the refusals the proxy cannot provoke match the document too: token refusals, 413, 415', async () => {
    // Every token endpoint without a token, and one with a bad token, from 127.0.0.2 (a peer the spec
    // does not exempt); a body that is not JSON; a body over the 2 MiB limit.
    const refusals: { req: TargetRequest; status: number }[] = [
      ...CONTRACT.filter((e) => e.auth === 'token').map((e) => ({
        req: { method: e.method, path: e.path, ...(e.method === 'POST' ? { body: {} } : {}), asRemotePeer: true, auth: 'none' as const },
        status: 401,
      })),
      {
        req: {
          method: 'GET',
          path: '/api/cluster/tenant/list',
          asRemotePeer: true,
          auth: 'none',
          headers: { authorization: 'Bearer not.a.token' },
        },
        status: 401,
      },
      {
        req: { method: 'POST', path: '/api/cluster/tenant/create', rawBody: 'tenant_name=t1', headers: { 'content-type': 'text/plain' } },
        status: 415,
      },
      {
        req: { method: 'POST', path: '/api/cluster/tenant/create', body: { tenant_name: 't1', desc: 'x'.repeat(3 * 1024 * 1024) } },
        status: 413,
      },
    ];
    // Answered by the in-process simulator (it is told the peer address), then replayed byte for byte through Prism.
    const sim = await SimTarget.start({ seed: 3, warmUpMs: WARM_UP_MS });
    const recorder = new ViolationRecordingTarget({ inner: sim, name: 'sim' });
    try {
      for (const { req } of refusals) await recorder.request(req);
    } finally {
      await sim.close();
    }
    expect(recorder.exchanges.map((x) => x.answer.status)).toEqual(refusals.map((r) => r.status));
    // One planted wrong answer proves Prism checks these statuses: a 401 whose code is not 401.
    const first = recorder.exchanges[0];
    const planted: ProxiedExchange = { ...first, answer: { ...first.answer, body: first.answer.body.replace('"code":401', '"code":1') } };
    expect(planted.answer.body).toContain('"code":1,');
    const exchanges = [...recorder.exchanges, planted];
    const violations = await replayThroughProxy(exchanges, (upstream) =>
      startPrismProxy({ document: join(dir, 'openapi.json'), upstream }),
    );
    const summary = summarizeViolations(recorder.exchanges, violations.slice(0, -1));
    console.log(`openapi proxy, refusals fed through Prism: ${violationLine(summary)}`);
    expect(summary.withResponseViolations, summary.samples.join('\n')).toBe(0);
    expect(violations.at(-1)!.response.map((v) => v.location.join('.'))).toContain('response.body.code');
  }, 120_000);

  it('no answer breaks the document in envelope form B either (per-endpoint checks and scenarios)', async () => {
    // The property suites are left out here to keep the test short: they send the same kinds of
    // requests as in form A, where they ran; form B changes only the envelope, which every check covers.
    const run = await conformThroughProxy({
      document: join(dir, 'openapi.json'),
      seed: 2,
      envelope: 'B',
      properties: false,
      warmUpMs: WARM_UP_MS,
    });
    const summary = summarizeViolations(run.exchanges);
    console.log(describeRun('envelope B', run, summary));
    expect(run.report.vacuous).toBe(false);
    expect(run.exchanges.some((x) => x.answer.status === 200 && /"error":"/.test(x.answer.body))).toBe(true);
    expect(summary.withResponseViolations, summary.samples.join('\n')).toBe(0);
  }, 300_000);
});
