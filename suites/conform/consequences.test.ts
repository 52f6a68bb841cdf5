import { describe, expect, it } from 'vitest';
import { SimTarget } from '../targets/sim-target.ts';
import type { TargetRequest } from '../targets/target.ts';
import type { CheckRecord, Report } from './report-model.ts';
import { runConform } from '../run/runner.ts';
import { RefusingTarget } from './testing/refusing-target.ts';

/**
 * A cause appears once, its consequences fold under it: a server that refuses valid config sets of
 * two sections (the first one, whose set is the endpoint's valid request, and MqttSystemMonitor) gets
 * one finding for the refusals, and the read-backs that rest on those sets decide nothing by
 * themselves (no config.set.at-once or read-percent finding repeating them).
 */

function configSection(req: TargetRequest): string | undefined {
  if (req.method !== 'POST' || req.path !== '/api/cluster/config/set') return undefined;
  const body = req.body as { config_type?: unknown; config?: unknown } | undefined;
  return typeof body?.config_type === 'string' ? body.config_type : undefined;
}

/** Refuses the changed values of the round trip (delay_type PublishTime, a watermark set as a fraction below 0.7). */
function refuseTwoSections(req: TargetRequest): string | undefined {
  const type = configSection(req);
  const config = String((req.body as { config?: unknown } | undefined)?.config ?? '');
  if (type === 'MqttSlowSubscribeConfig' && config.includes('PublishTime')) return 'delay_type PublishTime is not supported';
  if (type === 'MqttSystemMonitor' && /"os_cpu_high_watermark":0\.6/.test(config)) return 'os_cpu_high_watermark must be a percentage';
  return undefined;
}

const checkOf = (r: Report, id: string): CheckRecord | undefined =>
  r.endpoints.find((e) => e.path === '/api/cluster/config/set')?.checks.find((c) => c.id === id);

describe('a refused config set and the checks resting on it', () => {
  it('is one finding of the refusals; the read-backs resting on them are not findings of their own', async () => {
    const sim = await SimTarget.start({ seed: 2, nodes: 1, workload: 'none' });
    const target = new RefusingTarget(sim, refuseTwoSections);
    let report: Report;
    try {
      report = await runConform({ target, seed: 2, only: ['POST /api/cluster/config/set'], properties: false });
    } finally {
      await target.close();
    }
    // Both refusals were asked (the round trip's changed values), so the run saw what it reports.
    expect(target.refusedRequests.map(configSection)).toEqual(['MqttSlowSubscribeConfig', 'MqttSystemMonitor']);

    const refusals = report.findings.find((f) => f.id === 'config.set.valid-set-refused');
    expect(refusals, report.findings.map((f) => `${f.id}: ${f.title}`).join('\n')).toBeDefined();
    expect(refusals!.title).toBe('config set: a valid set of a section is refused (MqttSlowSubscribeConfig, MqttSystemMonitor)');
    expect(refusals!.level).toBe('MUST');
    expect(refusals!.checks.map((c) => c.id).sort()).toEqual(['config.set.MqttSystemMonitor.accepted', 'happy-path']);
    expect(refusals!.assertions?.sort()).toEqual(['config.set.type.system-monitor', 'endpoints.index.config-set']);

    // Nothing else repeats them: no finding of the round trip, the watermarks or the valid request's row.
    const ids = report.findings.map((f) => f.id);
    for (const id of ['config.set.at-once', 'config.set.read-percent', 'endpoints.index.config-set']) expect(ids).not.toContain(id);
    // The round trip decided the six sections whose sets were accepted, and names the two it could not.
    expect(checkOf(report, 'config.set-get-roundtrip')).toMatchObject({ status: 'pass' });
    expect(checkOf(report, 'config.set-get-roundtrip')!.message).toMatch(
      /^6 sections .* show every changed field at once; not decided for MqttSlowSubscribeConfig, MqttSystemMonitor \(the set was refused\)$/,
    );
    // No watermark was read back: rests on the refused MqttSystemMonitor set, so inconclusive, not a pass or a failure.
    expect(checkOf(report, 'config.read-percent')).toMatchObject({ status: 'inconclusive' });
    expect(checkOf(report, 'config.read-percent')!.message).toMatch(/rests on config\.set\.MqttSystemMonitor\.accepted, which failed/);
  }, 60_000);
});
