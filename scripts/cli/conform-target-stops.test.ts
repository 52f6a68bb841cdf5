import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../../suites/conform/report-model.ts';
import { MQSIM_BIN, spawnPrintingUrl, type SpawnedTarget } from '../../suites/targets/spawned-target.ts';
import { runConformCommand, type ConformIo } from './conform-command.ts';

/**
 * A target killed in the middle of a run: a real `mqsim serve` child process, `kill -9` once the run
 * has checked a few endpoints. The run must notice (requests in a row without an answer, then a
 * re-probe of /health/ready and / that gets none either), end there, report ONE finding saying when
 * and at which request the target stopped, and exit 2 — not one "gives no answer" finding per endpoint.
 */

const root = mkdtempSync(join(tmpdir(), 'mqsim-conform-stops-'));
let served: SpawnedTarget | undefined;
afterAll(async () => {
  await served?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** Kill the server once this many endpoints are done. */
const KILL_AFTER = 5;

describe('mqsim conform against a target that stops answering', () => {
  it('ends the run with one finding naming when and where, and exits 2', async () => {
    served = await spawnPrintingUrl(
      process.execPath,
      [MQSIM_BIN, 'serve', '--port', '0', '--nodes', '1', '--workload', 'none'],
      'mqsim serve',
    );
    const child = served.child;
    const err: string[] = [];
    let killedAt: number | undefined;
    const io: ConformIo = {
      reportsRoot: root,
      stdout: () => {},
      stderr: (t) => {
        err.push(t);
        for (const done of t.matchAll(/^endpoint\s+(\d+) of \d+/gm)) {
          if (killedAt !== undefined || Number(done[1]) < KILL_AFTER) continue;
          killedAt = Number(done[1]);
          child.kill('SIGKILL');
        }
      },
      stderrIsTTY: false,
    };
    const reportDir = join(root, 'run');
    const started = performance.now();
    const code = await runConformCommand({ target: served.url, seed: 1, timeout: 3_000, nodes: 1, reportDir, properties: false }, io);
    const seconds = (performance.now() - started) / 1000;

    expect(killedAt, err.join('')).toBe(KILL_AFTER);
    expect(
      await new Promise((r) =>
        child.exitCode !== null || child.signalCode !== null ? r(child.signalCode) : child.once('exit', (_c, s) => r(s)),
      ),
    ).toBe('SIGKILL');
    expect(code).toBe(2);
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as Report;
    // One finding for the stop: no "gives no answer" finding per endpoint, none about a rule the requests never reached.
    const stop = report.findings.filter((f) => f.id === 'target-stopped');
    expect(stop).toHaveLength(1);
    expect(report.findings[0].id).toBe('target-stopped');
    expect(report.findings.filter((f) => f.id.startsWith('transport@'))).toEqual([]);
    expect(stop[0].level).toBe('MUST');
    expect(stop[0].title).toMatch(
      /^the target stopped answering at \d{4}-\d\d-\d\dT[\d:.]+Z: request \d+ of the run \((GET|POST) \/\S*\) got no answer \(.+\), nor did the \d+ after it; the re-probe got no answer either \(GET \/health\/ready: .+; GET \/: .+\)\. The run ended there, after \d+ of \d+ endpoints$/,
    );
    expect(report.stopped).toMatchObject({ endpointsSelected: report.endpoints.length });
    expect(report.stopped!.endpointsChecked).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(report.stopped!.endpointsChecked).toBeLessThan(KILL_AFTER + 3);
    expect(report.verdictLine).toMatch(/^INCOMPLETE — the target stopped answering at /);
    // The endpoints after the stop were never checked; the ones before it keep their verdicts.
    expect(report.endpoints.filter((e) => e.status === 'untested').length).toBeGreaterThan(report.endpoints.length - KILL_AFTER - 3);
    expect(report.endpoints.slice(0, KILL_AFTER - 1).every((e) => e.status === 'pass')).toBe(true);
    expect(err.join('')).toMatch(/the target stopped answering at .*: the run ended there/);
    // Bounded: the stop is noticed at once, not after every remaining check timed out.
    expect(seconds).toBeLessThan(40);
  }, 60_000);
});
