import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Cluster } from './model/cluster/cluster.ts';
import { InProcessSim } from './admin-api/in-process-client.ts';

const SIM_DIR = new URL('.', import.meta.url).pathname;
/**
 * The deterministic trees: the model, the admin API over it (sim/admin-api: routing, validation, handlers,
 * envelopes, without sockets), and the runs (chaos, scenarios) that drive it through the in-process API.
 */
const DETERMINISTIC = ['model', 'admin-api', 'runs'].map((dir) => join(SIM_DIR, dir));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Runs a scripted session: the same calls at the same virtual times. */
async function session(seed: number): Promise<string> {
  const sim = new InProcessSim({ seed, workload: 'demo', nodes: 3 });
  sim.advance(60_000);
  await sim.post('/api/cluster/tenant/create', { tenant_name: 'det' });
  await sim.post('/api/cluster/user/create', { tenant: 'det', username: 'u', password: 'p', is_superuser: false });
  sim.advance(10 * 60_000);
  await sim.get('/api/mqtt/overview');
  sim.advance(5 * 60_000);
  return sim.cluster.engine.trace.hash;
}

describe('determinism', () => {
  it('gives one trace hash for one seed, and another for another seed', async () => {
    const a = await session(42);
    const b = await session(42);
    const c = await session(43);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it('records the start of a run in the trace', () => {
    const cluster = new Cluster({ seed: 's', workload: 'none' }).start();
    expect(cluster.engine.trace.tail(1000).some((e) => e.kind === 'cluster.start')).toBe(true);
  });

  it('keeps wall clock, Math.random and timers out of sim/model/, sim/admin-api/ and sim/runs/ (every file, no exemption)', () => {
    // The folder is the rule: wall time, sockets and real clients live in sim/io/, which maps them
    // onto the model as engine events (and gives the admin app's live mode its wall clock);
    // `npm run deps` keeps sim/model/, sim/admin-api/ and sim/runs/ from importing it.
    const forbidden = /\bDate\.now\(|new Date\(\)|Math\.random\(|\bsetTimeout\(|\bsetInterval\(|\bsetImmediate\(|performance\.now\(/;
    const offenders: string[] = [];
    const files = DETERMINISTIC.flatMap((dir) => sourceFiles(dir));
    for (const file of files) {
      const rel = relative(SIM_DIR, file);
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (forbidden.test(line) && !line.trim().startsWith('//') && !line.trim().startsWith('*'))
            offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(files.length).toBeGreaterThan(100);
    expect(offenders).toEqual([]);
  });
});
