import { describe, expect, it } from 'vitest';
import { OperationError } from '../errors/operation-error.ts';
import { Cluster } from '../cluster/cluster.ts';
import { groupNames, HEARTBEAT_INTERVAL_MS, SNAPSHOT_EVERY_ENTRIES } from './raft-groups.ts';
import { RAFT_INVARIANTS } from './raft-invariants.ts';

const cluster = (nodes = 3, seed = 7): Cluster => new Cluster({ seed, nodes }).start();

function errorOf(fn: () => unknown): OperationError {
  try {
    fn();
  } catch (e) {
    if (e instanceof OperationError) return e;
    throw e;
  }
  throw new Error('expected an OperationError');
}

describe('consensus groups', () => {
  it('names the groups of a layout: meta, mqtt, then numbered offset and data groups', () => {
    expect(groupNames({ offset_raft_group_num: 1, data_raft_group_num: 1 })).toEqual(['meta', 'mqtt', 'offset', 'data']);
    expect(groupNames({ offset_raft_group_num: 2, data_raft_group_num: 3 })).toEqual([
      'meta',
      'mqtt',
      'offset',
      'offset_1',
      'data',
      'data_1',
      'data_2',
    ]);
  });

  it('starts every group with every node as voter and a seeded leader in term 1, without advancing time', () => {
    const c = cluster();
    expect(c.now()).toBe(c.options.epochMs);
    expect(c.raft.names()).toEqual(['meta', 'mqtt', 'offset', 'data']);
    for (const g of c.raft.groups()) {
      expect(g.voters).toEqual([1, 2, 3]);
      expect(g.term).toBe(1);
      expect([1, 2, 3]).toContain(g.leaderId);
      expect(g.lastLogIndex).toBe(1); // the leader's blank entry after the initial membership at 0
    }
    expect(c.raft.metaLeaderId()).toBe(c.raft.get('meta')!.leaderId);
    // Same seed, same leaders.
    expect(
      cluster()
        .raft.groups()
        .map((g) => g.leaderId),
    ).toEqual(c.raft.groups().map((g) => g.leaderId));
  });

  it('registers the Raft invariants by name; they hold on a healthy cluster', () => {
    const c = cluster();
    for (const name of RAFT_INVARIANTS) expect(c.invariants.names()).toContain(name);
    c.engine.advance(5_000);
    expect(c.invariants.checkAll(c.now(), 0)).toEqual([]);
  });

  it('shows the group from each node, computed from its Raft state: one Leader, the others Followers, leader-only progress', () => {
    const c = cluster();
    c.engine.advance(1_234);
    const leader = c.raft.get('meta')!.leaderId!;
    for (const id of [1, 2, 3]) {
      const v = c.raft.stateView('meta', id);
      expect(v.id).toBe(id);
      expect(v.current_leader).toBe(leader);
      expect(v.vote).toEqual({ leader_id: { term: 1, node_id: leader }, committed: true });
      expect(v.membership_config).toEqual({
        log_id: { leader_id: { term: 0, node_id: 0 }, index: 0 },
        membership: {
          configs: [[1, 2, 3]],
          nodes: {
            '1': { node_id: 1, rpc_addr: '127.0.0.1:1228' },
            '2': { node_id: 2, rpc_addr: '127.0.0.1:1229' },
            '3': { node_id: 3, rpc_addr: '127.0.0.1:1230' },
          },
        },
      });
      expect(v.running_state).toEqual({ Ok: null });
      expect(v.last_log_index).toBe(1);
      expect(v.last_applied).toEqual({ leader_id: { term: 1, node_id: leader }, index: 1 });
      if (id === leader) {
        expect(v.state).toBe('Leader');
        expect(Object.keys(v.heartbeat!)).toEqual(['1', '2', '3']);
        expect(v.heartbeat![String(leader)]).toBe(c.now() * 1_000_000);
        for (const f of [1, 2, 3].filter((f) => f !== leader)) {
          // Acknowledged the latest heartbeat: sent within the last interval (plus a round trip).
          expect(v.heartbeat![String(f)]).toBeGreaterThanOrEqual((c.now() - HEARTBEAT_INTERVAL_MS - 20) * 1_000_000);
        }
        expect(v.millis_since_quorum_ack).toBeLessThanOrEqual(HEARTBEAT_INTERVAL_MS + 20);
        expect(v.last_quorum_acked).toBe((c.now() - v.millis_since_quorum_ack!) * 1_000_000);
        expect(v.replication![String(id)]).toEqual(v.last_applied);
      } else {
        expect(v.state).toBe('Follower');
        expect(v.heartbeat).toBeNull();
        expect(v.replication).toBeNull();
        expect(v.millis_since_quorum_ack).toBeNull();
        expect(v.last_quorum_acked).toBeNull();
      }
    }
  });

  it('proposes writes to the leader; they commit and apply on every node within a round trip or a heartbeat', () => {
    const c = cluster();
    expect(c.raft.appendMeta('api:/api/cluster/tenant/create')).toBe(true);
    expect(c.raft.appendMeta('api:/api/cluster/tenant/delete')).toBe(true);
    const id = c.raft.write('offset', 'offset.commit');
    expect(id.index).toBe(2);
    expect(c.raft.get('meta')!.lastLogIndex).toBe(3); // at the leader at once
    c.engine.advance(HEARTBEAT_INTERVAL_MS + 20);
    for (const node of [1, 2, 3]) {
      expect(c.raft.stateView('meta', node).last_applied?.index).toBe(3);
      expect(c.raft.stateView('offset', node).last_applied?.index).toBe(2);
      expect(c.raft.stateView('mqtt', node).last_log_index).toBe(1);
    }
    expect(c.raft.get('meta')!.writes.get('api:/api/cluster/tenant/create')).toBe(1);
  });

  it('commitWrite runs the simulation until the entry is committed and acknowledges it', () => {
    const c = cluster();
    const before = c.now();
    const id = c.raft.commitWrite('meta', 'api:x');
    const meta = c.raft.get('meta')!;
    expect(meta.node(meta.leaderId!)!.commitIndex).toBeGreaterThanOrEqual(id.index);
    expect(c.now() - before).toBeLessThanOrEqual(20); // a round trip on 1-5 ms links
    expect(meta.core.audit.ackedCount()).toBe(1);
  });

  it('commitWrite waits up to raft_write_timeout_sec for a leader, then fails saying the change may be lost', () => {
    const c = cluster();
    c.nodes.crash(1);
    c.nodes.crash(2);
    c.engine.advance(2_000);
    const before = c.now();
    const e = errorOf(() => c.raft.commitWrite('meta', 'api:x'));
    expect(e.kind).toBe('unavailable');
    expect(e.message).toBe(
      'the meta consensus group had no leader within raft_write_timeout_sec (30 s; only 1 of its 3 voters are online, fewer than the quorum of 2): ' +
        'the change is made but not committed, and may be lost; read it back before retrying',
    );
    expect(c.now() - before).toBe(30_000);
  });

  it('takes a snapshot and purges the log every SNAPSHOT_EVERY_ENTRIES applied entries', () => {
    const c = cluster();
    expect(c.raft.stateView('meta', 1).snapshot).toBeNull();
    for (let i = 0; i < SNAPSHOT_EVERY_ENTRIES; i++) c.raft.appendMeta('x');
    c.engine.advance(500);
    for (const node of [1, 2, 3]) {
      const v = c.raft.stateView('meta', node);
      expect(v.snapshot?.index).toBe(SNAPSHOT_EVERY_ENTRIES);
      expect(v.purged).toEqual(v.snapshot);
      expect(v.last_log_index).toBe(SNAPSHOT_EVERY_ENTRIES + 1);
    }
  });

  it("refuses to remove a voter from a group of 2 with the real server's text, changing nothing", () => {
    const c = cluster(2);
    const before = c.raft.groups().map((g) => [...g.voters]);
    const e = errorOf(() => c.raft.removeVoter(2));
    expect(e.kind).toBe('failed');
    expect(e.message).toBe(
      '[meta] refuse to remove node 2: only 2 voters, removing one would break quorum (need >= 3 voters to safely remove one)',
    );
    expect(c.raft.groups().map((g) => g.voters)).toEqual(before);
  });

  it('removes a stopped voter from every group (committed before it returns); groups it led elected anew', () => {
    const c = cluster();
    const ledBy = (id: number) =>
      c.raft
        .groups()
        .filter((g) => g.leaderId === id)
        .map((g) => g.name);
    const victim = c.raft.get('meta')!.leaderId!;
    const led = ledBy(victim);
    c.nodes.stop(victim); // graceful: hands its leaderships over
    expect(ledBy(victim)).toEqual([]);
    c.engine.advance(100);
    expect(c.raft.groups().every((g) => g.leaderId !== null)).toBe(true);
    expect(c.raft.removeVoter(victim)).toEqual(['meta', 'mqtt', 'offset', 'data']);
    for (const g of c.raft.groups()) {
      expect(g.voters).not.toContain(victim);
      expect(g.membershipLogId.index).toBeGreaterThan(1); // the new membership is an entry after the blank one
      expect(g.members.has(victim)).toBe(false);
      if (led.includes(g.name)) expect(g.term).toBeGreaterThanOrEqual(2);
    }
    const view = c.raft.stateView('meta', c.raft.metaLeaderId()!);
    expect(view.membership_config.membership.configs[0]).not.toContain(victim);
    expect(view.membership_config.log_id?.index).toBeGreaterThan(0);
    expect(c.raft.removeVoter(victim)).toEqual([]); // in no membership any more
    expect(c.invariants.checkAll(c.now(), 0)).toEqual([]);
  });

  it('loses the leader without a quorum online and elects again when a node comes back', () => {
    const c = cluster();
    c.nodes.crash(1);
    c.nodes.crash(2);
    c.engine.advance(2_000); // check-quorum: a leader without a quorum steps down
    for (const g of c.raft.groups()) expect(g.leaderId).toBeNull();
    expect(c.raft.stateView('meta', 3).state).toBe('Candidate');
    expect(c.raft.appendMeta('x')).toBe(false);
    const e = errorOf(() => c.raft.write('mqtt', 'topic.create'));
    expect(e.kind).toBe('unavailable');
    expect(e.message).toBe('the mqtt consensus group has no leader (only 1 of its 3 voters are online, fewer than the quorum of 2); retry');
    c.nodes.restart(2);
    c.engine.advance(2_000);
    for (const g of c.raft.groups()) {
      expect([2, 3]).toContain(g.leaderId);
      expect(g.term).toBeGreaterThanOrEqual(2);
    }
    // A member that never acknowledged this leader shows a null heartbeat.
    const leader = c.raft.get('meta')!.leaderId!;
    const hb = c.raft.stateView('meta', leader).heartbeat!;
    expect(hb['1']).toBeNull();
    expect(hb[String(leader === 2 ? 3 : 2)]).toBeGreaterThan((c.now() - HEARTBEAT_INTERVAL_MS - 20) * 1_000_000);
  });

  it('a crashed node keeps its term, vote and log; restarted, it catches up', () => {
    const c = cluster(3, 8);
    const meta = c.raft.get('meta')!;
    const follower = [1, 2, 3].find((id) => id !== meta.leaderId)!;
    c.nodes.crash(follower);
    for (let i = 0; i < 5; i++) c.raft.appendMeta('w');
    c.engine.advance(200);
    const down = c.raft.stateView('meta', follower);
    expect(down.current_term).toBe(1);
    expect(down.last_log_index).toBe(1);
    c.nodes.restart(follower);
    c.engine.advance(300);
    expect(c.raft.stateView('meta', follower).last_applied?.index).toBe(6);
  });

  it('reads the group counts from the meta_runtime layout and spreads keys over them', () => {
    const c = new Cluster({ seed: 7, nodes: 3, metaRuntime: { offset_raft_group_num: 3, data_raft_group_num: 2 } }).start();
    expect(c.raft.names()).toEqual(['meta', 'mqtt', 'offset', 'offset_1', 'offset_2', 'data', 'data_1']);
    const used = new Set(Array.from({ length: 50 }, (_, i) => c.raft.offsetGroupFor(`g${i}`)));
    expect([...used].sort()).toEqual(['offset', 'offset_1', 'offset_2']);
    expect(c.raft.dataGroupFor('shard-a')).toBe(c.raft.dataGroupFor('shard-a'));
  });
});
