import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimTarget } from '../targets/sim-target.ts';
import { ForwardingTarget, type Target, type TargetRequest, type TargetResponse } from '../targets/target.ts';
import type { Report } from './report-model.ts';
import { runConform } from '../run/runner.ts';
import { writeReports } from '../report/writers/write-reports.ts';

const dir = mkdtempSync(join(tmpdir(), 'mqsim-concurrent-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Families that go at once (their paths' segment), to see whether requests of two were ever in flight together. */
const FAMILY = /\/api\/(?:cluster|mqtt)\/(user|acl|blacklist|topic-rewrite|schema)\//;

/** Passes requests on and notes whether requests of two different families were ever in flight at once. */
class OverlapWatch extends ForwardingTarget {
  private readonly inFlight = new Map<string, number>();
  overlaps = 0;

  constructor(inner: Target) {
    super(inner);
  }

  override async request(req: TargetRequest): Promise<TargetResponse> {
    const family = FAMILY.exec(req.path)?.[1];
    if (!family) return super.request(req);
    if ([...this.inFlight].some(([f, n]) => f !== family && n > 0)) this.overlaps++;
    this.inFlight.set(family, (this.inFlight.get(family) ?? 0) + 1);
    try {
      return await super.request(req);
    } finally {
      this.inFlight.set(family, this.inFlight.get(family)! - 1);
    }
  }
}

/** The report with its wall-clock parts fixed (run times, per-endpoint and per-answer durations): nothing else may differ. */
function withoutWallClock(report: Report): Report {
  const fixed = JSON.parse(
    JSON.stringify(report, (key, value: unknown) => (key === 'durationMs' && typeof value === 'number' ? 0 : value)),
  ) as Report;
  return { ...fixed, startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:00.000Z' };
}

async function run(
  concurrency: number,
  name: string,
  properties = false,
): Promise<{ files: Record<string, string>; overlaps: number; report: Report }> {
  const sim = await SimTarget.start({ seed: 7 });
  const watch = new OverlapWatch(sim);
  try {
    const report = await runConform({ target: watch, seed: 7, concurrency, properties, runId: 'same-run' });
    const written = writeReports(withoutWallClock(report), join(dir, name));
    return {
      files: {
        json: readFileSync(written.json, 'utf8'),
        html: readFileSync(written.html, 'utf8'),
        junit: readFileSync(written.junit, 'utf8'),
      },
      overlaps: watch.overlaps,
      report,
    };
  } finally {
    await sim.close();
  }
}

describe('conform --concurrency', () => {
  it('writes the same report.json, index.html and junit.xml as the sequential run, byte for byte, for the same seed', async () => {
    const sequential = await run(1, 'sequential');
    const concurrent = await run(4, 'concurrent');
    // The concurrent run did check families at once; the sequential one never did.
    expect(sequential.overlaps).toBe(0);
    expect(concurrent.overlaps).toBeGreaterThan(0);
    expect(JSON.parse(concurrent.files.json).summary.checks).toBeGreaterThan(2000);
    // Compared as text: the first differing line is what a failure shows.
    expect(concurrent.files.json).toBe(sequential.files.json);
    expect(concurrent.files.junit).toBe(sequential.files.junit);
    expect(concurrent.files.html === sequential.files.html, 'index.html differs').toBe(true);
  }, 180_000);

  it('with the property suites, started beside cleanup and twice as many at once, writes the same reports as the sequential run', async () => {
    const sequential = await run(1, 'sequential-properties', true);
    const concurrent = await run(4, 'concurrent-properties', true);
    // The properties ran (with --concurrency 4: 8 at once, beside cleanup; with 1: 4, after it).
    expect(JSON.parse(concurrent.files.json).properties.results).toBeGreaterThan(50);
    expect(concurrent.report.properties!.durationMs).toBeGreaterThan(0);
    expect(concurrent.files.json).toBe(sequential.files.json);
    expect(concurrent.files.junit).toBe(sequential.files.junit);
    expect(concurrent.files.html === sequential.files.html, 'index.html differs').toBe(true);
  }, 300_000);
});
