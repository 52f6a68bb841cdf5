import { describe, expect, it } from 'vitest';
import { API } from '../../contract/index.ts';
import type { ApiContract } from '../../contract/core/types.ts';
import { SimTarget } from '../targets/sim-target.ts';
import type { CheckRecord, Report } from './report-model.ts';
import { runConform } from '../run/runner.ts';

/**
 * The generated checks (required, unknown-parameter, length, range and enum) vary one parameter of a
 * request that must itself be accepted. When it is not — the fixture they vary could not be created,
 * or the valid request was refused — they are inconclusive with the reason, never failures (nor
 * passes on a refusal the base request would have got anyway); the valid-request check still fails.
 */

/** The contract with the topic fixture as it was: without `source`, which the real server requires. */
const WITHOUT_SOURCE: ApiContract = {
  ...API,
  families: API.families.map((f) =>
    f.key !== 'topic'
      ? f
      : {
          ...f,
          fixture: {
            ...f.fixture,
            fields: (n, s) => {
              const { source: _source, ...rest } = f.fixture.fields(n, s);
              return rest;
            },
          },
        },
  ),
};

const GENERATED = /^(required|limit|range|enum)\.|^unknown-fields-ignored$/;

async function run(deviations: string[], only: string, api?: ApiContract): Promise<Report> {
  const target = await SimTarget.start({ seed: 6, nodes: 1, workload: 'none', deviations });
  try {
    return await runConform({ target, seed: 6, only: [only], properties: false, ...(api ? { api } : {}) });
  } finally {
    await target.close();
  }
}

const checksOf = (report: Report, id: string): CheckRecord[] => report.endpoints.find((e) => e.id === id)!.checks;

describe('checks on a base request that is not accepted', () => {
  const needsSource = ['topic-create-needs-source', 'validation-texts-in-words'];

  it('a topic fixture the server refuses ("missing field `source`") makes the topic create checks inconclusive, not SHOULD failures', async () => {
    const report = await run(needsSource, 'cluster.topic.create', WITHOUT_SOURCE);
    expect(report.notes.some((n) => n.startsWith('fixture topic not created') && n.includes('missing field `source`'))).toBe(true);
    const checks = checksOf(report, 'cluster.topic.create');
    // The server refusing the run's topic creates still fails the valid request.
    expect(checks.find((c) => c.id === 'happy-path')?.status).toBe('fail');
    const generated = checks.filter((c) => GENERATED.test(c.id));
    expect(generated.length).toBeGreaterThan(20);
    expect(generated.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    // A pass stands only on its own acceptance (a source value sent is accepted), never on a refusal.
    const passed = generated.filter((c) => c.status === 'pass').map((c) => c.id);
    expect(
      passed.every((id) => /^enum\.source\.[A-Za-z0-9]+$/.test(id)),
      passed.join(', '),
    ).toBe(true);
    const undecided = generated.find((c) => c.id === 'range.partition.0.names-param');
    expect([undecided?.status, undecided?.message]).toEqual([
      'inconclusive',
      expect.stringMatching(
        /^not decided: the run's topic fixture, which these checks vary, could not be created: its create was refused \(.*missing field `source`/,
      ),
    ]);
    expect(report.findings.map((f) => `${f.level} ${f.assertion}`)).toEqual(['INFO notes.path-only.request']);
  }, 60_000);

  it('with the fixture the server accepts, the same checks decide (and pass)', async () => {
    const report = await run(needsSource, 'cluster.topic.create');
    const generated = checksOf(report, 'cluster.topic.create').filter((c) => GENERATED.test(c.id));
    expect(generated.filter((c) => c.status === 'inconclusive' || c.status === 'fail').map((c) => c.id)).toEqual([]);
    expect(report.findings).toEqual([]);
  }, 60_000);

  it('a valid request answered as a failure fails the happy path and leaves its parameter checks undecided', async () => {
    const report = await run(['topic-detail-success-code-1'], 'cluster.topic.detail');
    const checks = checksOf(report, 'cluster.topic.detail');
    expect(checks.find((c) => c.id === 'happy-path')?.status).toBe('fail');
    const required = checks.filter((c) => c.id.startsWith('required.'));
    expect(required.length).toBeGreaterThan(0);
    expect(required.map((c) => [c.id, c.status, c.message.slice(0, 61)])).toEqual(
      required.map((c) => [c.id, 'inconclusive', 'not decided: the valid request these checks vary was not acce']),
    );
    expect(report.verdict).toBe('fail');
  }, 60_000);
});
