import { describe, expect, it } from 'vitest';
import { OperationError } from '../errors/operation-error.ts';
import { Cluster } from './cluster.ts';
import type { NodeLifecycleEvent } from '../nodes/node-registry.ts';

const cluster = (seed = 2): Cluster => new Cluster({ seed, nodes: 3 }).start();

describe('node lifecycle', () => {
  it('tells subscribers about crash, stop, restart, leave and a wiped start, after the change; unsubscribing stops it', () => {
    const c = cluster();
    const seen: NodeLifecycleEvent[] = [];
    const online: boolean[] = [];
    const off = c.nodes.onLifecycle((e) => {
      seen.push(e);
      online.push(c.nodes.get(e.nodeId)!.online);
    });
    c.nodes.crash(2);
    c.engine.advance(1_000);
    c.nodes.restart(2);
    c.nodes.stop(3);
    c.engine.advance(1_000);
    c.nodes.leave(3);
    c.nodes.start(3, { wiped: true });
    expect(seen).toEqual([
      { kind: 'crash', nodeId: 2 },
      { kind: 'restart', nodeId: 2 },
      { kind: 'stop', nodeId: 3 },
      { kind: 'leave', nodeId: 3 },
      { kind: 'start', nodeId: 3 },
    ]);
    expect(online).toEqual([false, true, false, false, true]);
    off();
    c.nodes.crash(1);
    expect(seen).toHaveLength(5);
  });

  it("a crash loses the node's Raft memory (a new leader after an election timeout); a graceful stop hands leadership over at once", () => {
    const crashed = cluster(6);
    const a = crashed.raft.metaLeaderId()!;
    const t0 = crashed.now();
    crashed.nodes.crash(a);
    while (crashed.raft.metaLeaderId() === null) crashed.engine.advance(5);
    expect(crashed.now() - t0).toBeGreaterThanOrEqual(crashed.raft.timing.electionMinMs);

    const stopped = cluster(6);
    const b = stopped.raft.metaLeaderId()!;
    const t1 = stopped.now();
    stopped.nodes.stop(b);
    while (stopped.raft.metaLeaderId() === null) stopped.engine.advance(5);
    expect(stopped.now() - t1).toBeLessThan(50);
    expect(stopped.raft.metaLeaderId()).not.toBe(b);
  });

  it('refuses impossible transitions with clear texts', () => {
    const c = cluster();
    const failure = (fn: () => unknown): string => {
      try {
        fn();
      } catch (e) {
        if (e instanceof OperationError) return e.message;
        throw e;
      }
      return 'no error';
    };
    expect(failure(() => c.nodes.restart(1))).toBe('Node 1 is already running');
    c.nodes.crash(1);
    expect(failure(() => c.nodes.crash(1))).toBe('Node 1 is already stopped');
    expect(failure(() => c.nodes.stop(1))).toBe('Node 1 is already stopped');
    expect(failure(() => c.nodes.start(1, { wiped: true }))).toBe(
      'Node 1 is still a voter of meta, mqtt, offset, data; a wiped member would forget its votes and log. Remove it with node leave first, or start it without wiping',
    );
    expect(failure(() => c.nodes.crash(9))).toBe('Node 9 does not exist; known nodes: 1, 2, 3');
  });

  it('closes and opens the ports with the process, and setPortsReady toggles them alone', () => {
    const c = cluster();
    c.nodes.crash(2);
    expect(c.nodes.get(2)!.portsReady).toBe(false);
    c.nodes.restart(2);
    expect(c.nodes.get(2)!.portsReady).toBe(true);
    c.nodes.setPortsReady(2, false);
    expect(c.nodes.get(2)!.online).toBe(true);
    expect(c.nodes.get(2)!.portsReady).toBe(false);
  });
});
