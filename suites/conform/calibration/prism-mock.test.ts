import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT } from '../../../contract/index.ts';
import { toOpenApi } from '../../../contract/to-openapi.ts';
import { spawnPrism, type SpawnedTarget } from '../../targets/spawned-target.ts';
import { UrlTarget } from '../../targets/url-target.ts';
import type { CheckRecord, Report } from '../report-model.ts';
import { runConform } from '../../run/runner.ts';

/**
 * Calibration against a server with no behaviour at all: Stoplight Prism's mock of our own OpenAPI
 * export answers every request with a schema-shaped example and keeps no state. What such a mock
 * can honestly pass is what the document itself carries: routing (405), request validation (required
 * fields, lengths, ranges, enums refused), token presence (401), and the shapes of the answers. Every
 * other check — a filter, a sort, a default page size, a write read back, a cross-endpoint agreement,
 * a time unit, an error text — must fail or be inconclusive on it: a pass there would be a verdict
 * without evidence.
 */

/** Checks a stateless mock generated from the document can deserve to pass (by id prefix). */
const SHAPE_AND_VALIDATION = [
  'happy-path',
  'exists',
  'success-envelope',
  'content-type',
  'data-schema',
  'envelope.',
  'required.',
  'limit.',
  'range.',
  'enum.',
  'unknown-fields-ignored',
  'wrong-method',
  'auth.',
  'list.limit.negative',
  'list.sort_field.unknown', // ignored (or refused): a mock that ignores everything ignores it too
  'list.sort_by.invalid',
  'connector.type.', // `.accepted`: a valid create is accepted (the `.config-defaults` reads are behaviour, see below)
  'connector.config.',
  'connector.unknown-type',
  'connector.config-not-json',
  'failure-strategy.',
  'property.requests',
  'health.ready-body', // the ready answer's shape (200 with status ok)
  'user.no-password-listed', // no password field in the records
  'config.read-view-form', // which of the read view's forms the answers use
  'config.alias-FlappingDetect', // an accepted config_type value
  'config.set.', // `config.set.<type>.accepted`: a valid set of each section accepted (the other sections' happy path)
  'node-leave.node-id-minimum', // node_id 0 refused
  'connector.type-case-insensitive', // an accepted connector_type spelling
];

const isShapeOrValidation = (c: CheckRecord) =>
  SHAPE_AND_VALIDATION.some((p) => c.id.startsWith(p)) &&
  !c.id.endsWith('.config-defaults') &&
  c.id !== 'failure-strategy.dead-letter-defaults';

/** Refusal checks: their pass message quotes the answer (`HTTP 400, code 400, "…"`). */
const REFUSAL =
  /^(required|limit|range|enum|connector\.config|connector\.unknown-type|connector\.config-not-json|failure-strategy|list\.limit\.negative)\b/;

let prism: SpawnedTarget | undefined;
let unavailable: string | undefined;
let report: Report;
const dir = mkdtempSync(join(tmpdir(), 'mqsim-prism-mock-'));

beforeAll(async () => {
  const doc = join(dir, 'openapi.json');
  writeFileSync(doc, JSON.stringify(toOpenApi(CONTRACT, { version: 'calibration' })));
  try {
    prism = await spawnPrism(doc);
  } catch (e) {
    unavailable = (e as Error).message;
    return;
  }
  const target = await UrlTarget.create({ url: prism.url, username: 'admin', password: 'admin', timeoutMs: 10_000 });
  try {
    report = await runConform({ target, seed: 1 });
  } finally {
    await target.close();
  }
}, 240_000);

afterAll(async () => {
  await prism?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('mqsim conform against prism mock of our OpenAPI (a server without behaviour)', () => {
  it('passes no behaviour check: each fails or is inconclusive for want of evidence', (test) => {
    if (unavailable) test.skip(`prism mock could not start: ${unavailable}`);
    const passes = report.endpoints.flatMap((e) => e.checks.filter((c) => c.status === 'pass').map((c) => ({ e, c })));
    const behaviour = passes.filter(({ c }) => !isShapeOrValidation(c));
    expect(behaviour.map(({ e, c }) => `${e.id} ${c.id} [${c.assertion}]: ${c.message.slice(0, 160)}`)).toEqual([]);
    // One canned example per data type is an array too: the monitor series must be shown to be the server's.
    const everyType = report.endpoints.find((e) => e.id === 'mqtt.monitor.data')?.checks.find((c) => c.id === 'monitor.every-data-type');
    expect([everyType?.status, everyType?.message]).toEqual(['inconclusive', expect.stringMatching(/same series: a canned answer/)]);
    // It does not slip through as a conforming server either.
    expect(report.verdict).toBe('fail');
    expect(report.findings.some((f) => f.level === 'MUST' && f.assertion === 'service.manage')).toBe(true);
    const count = (s: string) => report.endpoints.flatMap((e) => e.checks).filter((c) => c.status === s).length;
    console.log(
      `prism mock: ${passes.length} passes, all of shape or validation (${behaviour.length} behaviour passes); ${count('inconclusive')} inconclusive, ${count('fail')} failed in ${report.findings.length} findings`,
    );
  });

  it('never passes a refusal answered with code 0 (code 0 means success)', (test) => {
    if (unavailable) test.skip(`prism mock could not start: ${unavailable}`);
    const refusals = report.endpoints.flatMap((e) =>
      e.checks.filter((c) => c.status === 'pass' && REFUSAL.test(c.id)).map((c) => ({ e, c })),
    );
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.filter(({ c }) => /\bcode 0\b/.test(c.message)).map(({ e, c }) => `${e.id} ${c.id}: ${c.message}`)).toEqual([]);
  });
});
