import { describe, expect, it } from 'vitest';
import { Cluster } from '../cluster/cluster.ts';
import { applyFault } from '../cluster-ops/raft-fault-schedule.ts';
import { SeededRandom } from '../engine/seeded-random.ts';
import { heartbeatEntryStale, type HeartbeatWheel } from './heartbeat-wheel.ts';

/** The broker's wheel (private to the broker: read here only to compare its entries). */
const wheelOf = (c: Cluster): HeartbeatWheel => (c.mqtt as unknown as { sessions: { heartbeats: HeartbeatWheel } }).sessions.heartbeats;

/** Entries whose connection's `closed` flag disagrees with the obvious test (the client holds another connection or none). */
function mismatches(c: Cluster): { stale: number; disagree: number } {
  let stale = 0;
  let disagree = 0;
  wheelOf(c).forEachEntry((entry) => {
    const obvious = heartbeatEntryStale(entry);
    if (obvious) stale++;
    if ((entry.connection.closed === true) !== obvious) disagree++;
  });
  return { stale, disagree };
}

/**
 * Housekeeping skips a heartbeat entry whose connection closed by the flag the close sets on the
 * connection, not by reading the client. Differential: through thousands of random steps — the
 * demo's own life, disconnects and takeovers by others, nodes crashing and coming back — the flag
 * must say exactly what the client says for every entry waiting in the wheel.
 */
describe('heartbeat wheel: a closed connection flag against the client', () => {
  it('agrees for every waiting entry after every one of 2,000 random steps', () => {
    const c = new Cluster({ seed: 11, workload: 'demo', nodes: 3 });
    c.mqtt.demo.setTargetSize(600);
    c.start();
    const specs = c.mqtt.demo.clients();
    const rng = new SeededRandom('heartbeat-wheel');
    const kinds = { advance: 0, disconnect: 0, takeover: 0, crash: 0, restart: 0 };
    let staleSeen = 0;
    for (let step = 0; step < 2_000; step++) {
      const r = rng.next();
      const spec = rng.pick(specs);
      if (r < 0.5) {
        c.engine.advance(rng.int(1, 6_000)); // housekeeping every 5 s: about half the advances run one
        kinds.advance++;
      } else if (r < 0.7) {
        if (c.mqtt.disconnect(spec.clientId, spec.tenant, { clean: rng.chance(0.5) })) kinds.disconnect++;
      } else if (r < 0.9) {
        // Anyone's connect for a demo client: a takeover when it is connected, a return when not.
        if (c.mqtt.connect({ ...spec, lastWill: null }).ok) kinds.takeover++;
      } else if (r < 0.96) {
        if (!applyFault(c, { kind: 'crash', node: rng.int(1, 3) }).startsWith('skipped')) kinds.crash++;
      } else if (!applyFault(c, { kind: 'restart-all' }).startsWith('skipped')) kinds.restart++;
      const { stale, disagree } = mismatches(c);
      expect(disagree).toBe(0);
      staleSeen += stale;
    }
    // The steps did happen, and stale entries (the case the flag answers) were there to compare.
    for (const n of Object.values(kinds)) expect(n).toBeGreaterThan(5);
    expect(staleSeen).toBeGreaterThan(1_000);
  }, 300_000);
});
