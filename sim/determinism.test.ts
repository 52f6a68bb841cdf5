import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Cluster } from './cluster/cluster.ts';
import { InProcessSim } from './http/in-process-client.ts';

const SIM_DIR = new URL('.', import.meta.url).pathname;

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

  it('keeps wall clock, Math.random and timers out of the model (only the HTTP layer maps wall time)', () => {
    const forbidden = /\bDate\.now\(|new Date\(\)|Math\.random\(|\bsetTimeout\(|\bsetInterval\(|\bsetImmediate\(|performance\.now\(/;
    const offenders: string[] = [];
    for (const file of sourceFiles(SIM_DIR)) {
      const rel = relative(SIM_DIR, file);
      if (rel.startsWith('http/')) continue; // the HTTP layer is where wall time meets virtual time
      if (rel === 'mq9/nats-bridge.ts') continue; // live NATS I/O (serve --nats): real requests arrive when they arrive, not replayable
      // Live connector sinks do real I/O with wall-clock timeouts: live mode is by definition not
      // replayable, and is off unless `mqsim serve --live-connectors`. Outcomes re-enter the model as engine events.
      if (rel.startsWith('connectors/live/')) continue;
      // The MQTT listener's sockets and per-connection timers (connect timeout, keep-alive) and its
      // clock ticker: real clients arrive when they arrive. What they do to the model goes through
      // mqtt-wire/wire-ops.ts, which is scanned like the model, is journaled and replays exactly.
      if (rel === 'mqtt-wire/wire-connection.ts' || rel === 'mqtt-wire/mqtt-listener.ts') continue;
      // A connection's packets held until the journal made what they acknowledge durable: socket I/O only.
      if (rel === 'mqtt-wire/durable-outbox.ts') continue;
      if (rel.startsWith('mqtt-wire/testing/')) continue; // test helpers: real clients with wall-clock waits
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (forbidden.test(line) && !line.trim().startsWith('//') && !line.trim().startsWith('*'))
            offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });
});
