import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';

const hashAfterTenMinutes = (seed: number): string => {
  const sim = new InProcessSim({ workload: 'demo', nodes: 3, seed });
  sim.advance(600_000);
  return sim.cluster.engine.trace.hash;
};

describe('determinism of the MQTT demo workload', () => {
  it('gives the same trace hash for the same seed and a different one for another seed', () => {
    const a = hashAfterTenMinutes(21);
    expect(hashAfterTenMinutes(21)).toBe(a);
    expect(hashAfterTenMinutes(22)).not.toBe(a);
  });

  it('does not let API reads change the run', async () => {
    const quiet = new InProcessSim({ workload: 'demo', seed: 21 });
    const busy = new InProcessSim({ workload: 'demo', seed: 21 });
    for (let i = 0; i < 10; i++) {
      quiet.advance(60_000);
      busy.advance(60_000);
      for (const path of [
        '/api/mqtt/overview',
        '/api/mqtt/client/list',
        '/api/mqtt/session/list',
        '/api/mqtt/subscribe/list',
        '/metrics',
        '/api/mqtt/monitor/data?data_type=connection_num',
      ]) {
        await busy.get(path);
      }
    }
    expect(busy.cluster.engine.trace.hash).toBe(quiet.cluster.engine.trace.hash);
  });
});
