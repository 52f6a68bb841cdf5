import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';

const LEAVE = '/api/cluster/node/leave';

const votersOf = async (sim: InProcessSim, nodeId = 1): Promise<Record<string, number[][]>> => {
  const status = await sim.get('/api/status', { nodeId });
  return Object.fromEntries(
    Object.entries(status.json.data.meta as Record<string, any>).map(([g, v]) => [g, v.membership_config.membership.configs]),
  );
};

describe('node leave (rules 1-5)', () => {
  it('rule 1: refuses an online node unless forced; forced, the node leaves every group but keeps running', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    const refused = await sim.post(LEAVE, { node_id: 2 });
    expect(refused.status).toBe(200);
    expect(refused.json).toEqual({
      code: 1,
      message: 'Node 2 is still registered (alive). Stop its process first, or pass force=true. Removing a live node would orphan it.',
      data: null,
    });
    expect(Object.values(await votersOf(sim)).every((c) => c[0].includes(2))).toBe(true);

    const forced = await sim.post(LEAVE, { node_id: 2, force: true });
    expect(forced.json).toEqual({
      code: 0,
      message: 'success',
      data: 'Node 2 removed from the cluster. Wipe its data directory before rejoining as a new node.',
    });
    expect(Object.values(await votersOf(sim))).toEqual([[[1, 3]], [[1, 3]], [[1, 3]], [[1, 3]]]);
    const status = await sim.get('/api/status');
    expect(status.json.data.broker_node_list.map((n: any) => n.node_id)).toEqual([1, 2, 3]); // orphaned, still registered
  });

  it('rules 2, 3 and 5: a stopped node leaves; the next removal from 2-voter groups is refused naming group, node and count', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    sim.cluster.nodes.stop(3);
    sim.advance(100); // the leaderships node 3 handed over settle
    const left = await sim.post(LEAVE, { node_id: 3 });
    expect(left.json.code).toBe(0);
    expect(left.json.data).toBe('Node 3 removed from the cluster. Wipe its data directory before rejoining as a new node.');
    expect(Object.values(await votersOf(sim))).toEqual([[[1, 2]], [[1, 2]], [[1, 2]], [[1, 2]]]);
    expect(sim.cluster.nodes.get(3)!.removed).toBe(true);

    // Rule 3: already in no membership → success without effect.
    const logBefore = sim.cluster.raft.groups().map((g) => g.lastLogIndex);
    const again = await sim.post(LEAVE, { node_id: 3 });
    expect(again.json.code).toBe(0);
    expect(sim.cluster.raft.groups().map((g) => g.lastLogIndex)).toEqual(logBefore);
    // A node id the cluster never had is in no membership either.
    expect((await sim.post(LEAVE, { node_id: 99 })).json.code).toBe(0);

    // With 2 voters and one stopped the groups have no quorum, but the voter-count rule answers first.
    sim.cluster.nodes.stop(2);
    sim.advance(2_000);
    expect(sim.cluster.raft.metaLeaderId()).toBeNull();
    const refused = await sim.post(LEAVE, { node_id: 2 });
    expect(refused.json.code).toBe(1);
    expect(refused.json.message).toBe(
      '[meta] refuse to remove node 2: only 2 voters, removing one would break quorum (need >= 3 voters to safely remove one)',
    );
    expect(sim.cluster.raft.groups().every((g) => g.voters.includes(2))).toBe(true);
  });

  it('rule 4: a removed node rejoins only after a wipe, then as a voter of every group', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    sim.cluster.nodes.stop(3);
    sim.advance(100);
    expect((await sim.post(LEAVE, { node_id: 3 })).json.code).toBe(0);
    expect(() => sim.cluster.nodes.start(3)).toThrow(/wipe its data directory/);
    expect(sim.cluster.nodes.get(3)!.online).toBe(false);
    sim.advance(10_000);
    const node = sim.cluster.nodes.start(3, { wiped: true });
    expect(node.online).toBe(true);
    expect(node.removed).toBe(false);
    expect(node.startTime).toBeLessThanOrEqual(sim.cluster.now()); // joining commits a membership change per group
    sim.advance(200);
    expect(Object.values(await votersOf(sim))).toEqual([[[1, 2, 3]], [[1, 2, 3]], [[1, 2, 3]], [[1, 2, 3]]]);
    // A node that never left restarts without a wipe.
    sim.cluster.nodes.stop(2);
    expect(sim.cluster.nodes.start(2).online).toBe(true);
    expect(() => sim.cluster.nodes.start(2)).toThrow(/already running/);
  });

  it('validates node_id (required, at least 1) and force', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    for (const body of [{}, { node_id: 0 }, { node_id: 'x' }, { node_id: 3, force: 'yes' }]) {
      const res = await sim.post(LEAVE, body);
      expect(res.status).toBe(400);
      expect(res.json.message).toMatch(/node_id|force/);
    }
  });
});
