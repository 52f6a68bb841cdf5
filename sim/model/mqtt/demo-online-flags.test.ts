import { describe, expect, it } from 'vitest';
import { Cluster } from '../cluster/cluster.ts';
import { applyFault } from '../cluster-ops/raft-fault-schedule.ts';
import { SeededRandom } from '../engine/seeded-random.ts';

/**
 * The demo keeps a flag per client for "connected" as connections open and close, instead of asking
 * the broker for every client its sampled tick visits. Differential: through thousands of random
 * steps — the demo's own life, disconnects and takeovers by others, nodes crashing and coming back —
 * the kept flags must say exactly what the broker says.
 */
describe('demo population: kept online flags against the broker', () => {
  it('agree with the broker after every one of 2,000 random steps', () => {
    const c = new Cluster({ seed: 9, workload: 'demo', nodes: 3 });
    c.mqtt.demo.setTargetSize(2_100); // just above the sampled tick's threshold
    c.start();
    const specs = c.mqtt.demo.clients();
    const rng = new SeededRandom('demo-online-flags');
    expect(c.mqtt.demo.onlineFlagMismatches()).toEqual([]);
    const kinds = { advance: 0, disconnect: 0, takeover: 0, crash: 0, restart: 0 };
    let connectedSeen = 0;
    for (let step = 0; step < 2_000; step++) {
      const r = rng.next();
      const spec = rng.pick(specs);
      if (r < 0.5) {
        c.engine.advance(rng.int(1, 2_000)); // a tick every 2 s: about half the advances run one
        kinds.advance++;
      } else if (r < 0.7) {
        if (c.mqtt.disconnect(spec.clientId, spec.tenant, { clean: rng.chance(0.5) })) kinds.disconnect++;
      } else if (r < 0.9) {
        // Anyone's connect for a demo client: a takeover when it is connected, a return when not.
        const res = c.mqtt.connect({ ...spec, lastWill: null });
        if (res.ok) kinds.takeover++;
      } else if (r < 0.96) {
        if (!applyFault(c, { kind: 'crash', node: rng.int(1, 3) }).startsWith('skipped')) kinds.crash++;
      } else if (!applyFault(c, { kind: 'restart-all' }).startsWith('skipped')) kinds.restart++;
      expect(c.mqtt.demo.onlineFlagMismatches()).toEqual([]);
      connectedSeen = Math.max(connectedSeen, c.mqtt.connectionCount);
    }
    // The steps did happen: every kind more than a few times, and clients were connected meanwhile.
    for (const n of Object.values(kinds)) expect(n).toBeGreaterThan(5);
    expect(connectedSeen).toBeGreaterThan(1_000);
  }, 300_000);
});
