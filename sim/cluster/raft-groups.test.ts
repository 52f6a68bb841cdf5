import { describe, expect, it } from 'vitest';
import { OperationError } from '../api/operation-error.ts';
import { Cluster } from './cluster.ts';
import { groupNames, HEARTBEAT_INTERVAL_MS, SNAPSHOT_EVERY_ENTRIES } from './raft-groups.ts';

const cluster = (nodes = 3): Cluster => new Cluster({ seed: 7, nodes }).start();

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
    expect(groupNames({ offset_raft_group_num: 2, data_raft_group_num: 3 })).toEqual(['meta', 'mqtt', 'offset', 'offset_1', 'data', 'data_1', 'data_2']);
  });

  it('starts every group with every node as voter and a seeded leader in term 1', () => {
    const c = cluster();
    expect(c.raft.names()).toEqual(['meta', 'mqtt', 'offset', 'data']);
    for (const g of c.raft.groups()) {
      expect(g.voters).toEqual([1, 2, 3]);
      expect(g.term).toBe(1);
      expect([1, 2, 3]).toContain(g.leaderId);
      expect(g.lastLogIndex).toBe(1); // the leader's blank entry after the initial membership at 0
    }
    expect(c.raft.metaLeaderId()).toBe(c.raft.get('meta')!.leaderId);
    // Same seed, same leaders.
    expect(cluster().raft.groups().map((g) => g.leaderId)).toEqual(c.raft.groups().map((g) => g.leaderId));
  });

  it('shows the group from each node: one Leader, the others Followers, leader-only progress', () => {
    const c = cluster();
    c.engine.advance(1_234);
    const leader = c.raft.get('meta')!.leaderId!;
    for (const id of [1, 2, 3]) {
      const v = c.raft.stateView('meta', id);
      expect(v.id).toBe(id);
      expect(v.current_leader).toBe(leader);
      expect(v.vote).toEqual({ leader_id: { term: 1, node_id: leader }, committed: true });
      expect(v.membership_config.membership.configs).toEqual([[1, 2, 3]]);
      expect(Object.keys(v.membership_config.membership.nodes)).toEqual(['1', '2', '3']);
      expect(v.running_state).toEqual({ Ok: null });
      if (id === leader) {
        expect(v.state).toBe('Leader');
        expect(Object.keys(v.heartbeat!)).toEqual(['1', '2', '3']);
        expect(v.heartbeat![String(leader)]).toBe(c.now() * 1_000_000);
        expect(v.millis_since_quorum_ack).toBeLessThan(HEARTBEAT_INTERVAL_MS);
        expect(v.last_quorum_acked).toBeGreaterThan(c.options.epochMs * 1_000_000);
        expect(v.replication![String(id)]).toEqual(v.last_applied);
      } else {
        expect(v.state).toBe('Follower');
        expect(v.heartbeat).toBeNull();
        expect(v.replication).toBeNull();
        expect(v.millis_since_quorum_ack).toBeNull();
      }
    }
  });

  it('grows the meta log with each recorded mutation and other groups with their own writes', () => {
    const c = cluster();
    const before = c.raft.get('meta')!.lastLogIndex;
    expect(c.raft.appendMeta('api:/api/cluster/tenant/create')).toBe(true);
    expect(c.raft.appendMeta('api:/api/cluster/tenant/delete')).toBe(true);
    const meta = c.raft.stateView('meta', 1);
    expect(meta.last_log_index).toBe(before + 2);
    expect(meta.last_applied.index).toBe(before + 2);
    expect(c.raft.get('mqtt')!.lastLogIndex).toBe(1);
    c.raft.write('offset', 'offset.commit');
    expect(c.raft.get('offset')!.lastLogIndex).toBe(2);
  });

  it('takes a snapshot and purges the log every SNAPSHOT_EVERY_ENTRIES entries', () => {
    const c = cluster();
    expect(c.raft.stateView('meta', 1).snapshot).toBeNull();
    for (let i = 0; i < SNAPSHOT_EVERY_ENTRIES; i++) c.raft.appendMeta('x');
    const v = c.raft.stateView('meta', 1);
    expect(v.snapshot?.index).toBe(SNAPSHOT_EVERY_ENTRIES);
    expect(v.purged).toEqual(v.snapshot);
  });

  it('refuses to remove a voter from a group of 2 with the real server\'s text, changing nothing', () => {
    const c = cluster(2);
    const before = c.raft.groups().map((g) => [...g.voters]);
    const e = errorOf(() => c.raft.removeVoter(2));
    expect(e.kind).toBe('failed');
    expect(e.message).toBe('[meta] refuse to remove node 2: only 2 voters, removing one would break quorum (need >= 3 voters to safely remove one)');
    expect(c.raft.groups().map((g) => g.voters)).toEqual(before);
  });

  it('removes a voter from every group, writes the new membership and re-elects where it led', () => {
    const c = cluster();
    const ledBy = (id: number) => c.raft.groups().filter((g) => g.leaderId === id).map((g) => g.name);
    const victim = c.raft.get('meta')!.leaderId!;
    const led = ledBy(victim);
    c.nodes.stop(victim);
    expect(ledBy(victim)).toEqual([]);
    expect(c.raft.removeVoter(victim)).toEqual(['meta', 'mqtt', 'offset', 'data']);
    for (const g of c.raft.groups()) {
      expect(g.voters).not.toContain(victim);
      expect(g.membershipLogId.index).toBeGreaterThan(1); // the new membership is an entry after the blank one
      expect(g.members.has(victim)).toBe(false);
      if (led.includes(g.name)) expect(g.term).toBe(2);
    }
    const view = c.raft.stateView('meta', c.raft.metaLeaderId()!);
    expect(view.membership_config.membership.configs[0]).not.toContain(victim);
    expect(view.membership_config.log_id!.index).toBeGreaterThan(0);
    expect(c.raft.removeVoter(victim)).toEqual([]); // in no membership any more
  });

  it('loses the leader without a quorum online and elects again when a node comes back', () => {
    const c = cluster();
    c.nodes.stop(1);
    c.nodes.stop(2);
    for (const g of c.raft.groups()) expect(g.leaderId).toBeNull();
    expect(c.raft.stateView('meta', 3).state).toBe('Candidate');
    expect(c.raft.appendMeta('x')).toBe(false);
    expect(errorOf(() => c.raft.write('mqtt', 'topic.create')).kind).toBe('unavailable');
    c.nodes.start(2);
    for (const g of c.raft.groups()) {
      expect([2, 3]).toContain(g.leaderId);
      expect(g.term).toBeGreaterThanOrEqual(2);
    }
    // The stopped node's heartbeat stays at the time it went away.
    c.engine.advance(5_000);
    const leader = c.raft.get('meta')!.leaderId!;
    const hb = c.raft.stateView('meta', leader).heartbeat!;
    expect(hb['1']).toBeNull(); // never acknowledged this leader
    expect(hb[String(leader === 2 ? 3 : 2)]).toBeGreaterThan((c.now() - HEARTBEAT_INTERVAL_MS - 1) * 1_000_000);
  });

  it('reads the group counts from the meta_runtime layout and spreads keys over them', () => {
    const c = new Cluster({ seed: 7, nodes: 3, metaRuntime: { offset_raft_group_num: 3, data_raft_group_num: 2 } }).start();
    expect(c.raft.names()).toEqual(['meta', 'mqtt', 'offset', 'offset_1', 'offset_2', 'data', 'data_1']);
    const used = new Set(Array.from({ length: 50 }, (_, i) => c.raft.offsetGroupFor(`g${i}`)));
    expect([...used].sort()).toEqual(['offset', 'offset_1', 'offset_2']);
    expect(c.raft.dataGroupFor('shard-a')).toBe(c.raft.dataGroupFor('shard-a'));
  });
});
