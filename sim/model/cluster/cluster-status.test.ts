import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { contractProblems } from '../storage/testing/storage-support.ts';
import pkg from '../../../package.json' with { type: 'json' };

describe('cluster status', () => {
  it('answers /api/status and /api/info with the status object of a 3-node cluster', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    sim.advance(2_500);
    for (const path of ['/api/status', '/api/info']) {
      const res = await sim.get(path);
      expect(res.json.code).toBe(0);
      const data = res.json.data;
      expect(contractProblems(path === '/api/status' ? 'cluster.status' : 'cluster.info', data)).toBe('');
      expect(data.version).toBe(pkg.version);
      expect(data.cluster_name).toBe('mqsim-cluster');
      expect(data.start_time).toBe(Math.floor(sim.cluster.options.epochMs / 1000));
      expect(data.broker_node_list.map((n: any) => n.node_id)).toEqual([1, 2, 3]);
      expect(data.nodes).toEqual(['127.0.0.1']);
      expect(Object.keys(data.meta)).toEqual(['meta', 'mqtt', 'offset', 'data']);
      for (const g of Object.values(data.meta) as any[]) expect(g.id).toBe(1);
    }
  });

  it('shows the same leader and term of each group from every node, and only the leader says Leader', async () => {
    const sim = new InProcessSim({ nodes: 3, seed: 11 });
    const views = await Promise.all([1, 2, 3].map(async (nodeId) => (await sim.get('/api/status', { nodeId })).json.data.meta));
    for (const group of ['meta', 'mqtt', 'offset', 'data']) {
      const leader = views[0][group].current_leader;
      expect(views.map((v) => v[group].current_leader)).toEqual([leader, leader, leader]);
      expect(views.map((v) => v[group].current_term)).toEqual([1, 1, 1]);
      expect(views.map((v) => v[group].state)).toEqual([1, 2, 3].map((id) => (id === leader ? 'Leader' : 'Follower')));
      expect(views[leader - 1][group].heartbeat).not.toBeNull();
    }
  });

  it('drops a stopped node from the broker node list and lets the meta log grow with writes', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    const before = (await sim.get('/api/status')).json.data.meta.meta.last_log_index;
    expect((await sim.post('/api/cluster/tenant/create', { tenant_name: 'grow' })).json.code).toBe(0);
    sim.cluster.nodes.stop(2);
    sim.advance(200);
    const after = (await sim.get('/api/status')).json.data;
    expect(after.meta.meta.last_log_index).toBeGreaterThanOrEqual(before + 1); // + a blank entry if node 2 handed leadership over
    expect(after.broker_node_list.map((n: any) => n.node_id)).toEqual([1, 3]);
  });

  it('agrees across nodes after a leader crash: the new leader and term from every live node, placement_status from it', async () => {
    const sim = new InProcessSim({ nodes: 3, seed: 4 });
    const old = sim.cluster.raft.metaLeaderId()!;
    sim.cluster.nodes.crash(old);
    sim.advance(3_000);
    const live = [1, 2, 3].filter((id) => id !== old);
    const leader = sim.cluster.raft.metaLeaderId()!;
    expect(live).toContain(leader);
    const views = await Promise.all(live.map(async (nodeId) => (await sim.get('/api/status', { nodeId })).json.data));
    for (const group of ['meta', 'mqtt', 'offset', 'data']) {
      const g = sim.cluster.raft.get(group)!;
      expect(views.map((v) => v.meta[group].current_leader)).toEqual(live.map(() => g.leaderId));
      expect(views.map((v) => v.meta[group].current_term)).toEqual(live.map(() => g.term));
      expect(views.map((v) => v.meta[group].state)).toEqual(live.map((id) => (id === g.leaderId ? 'Leader' : 'Follower')));
    }
    expect(views[0].meta.meta.current_term).toBeGreaterThanOrEqual(2);
    expect(views[0].broker_node_list.map((n: any) => n.node_id)).toEqual(live);
    const placement = await Promise.all(
      live.map(async (nodeId) => (await sim.get('/api/mqtt/overview', { nodeId })).json.data.placement_status),
    );
    expect(placement).toEqual(live.map((id) => (id === leader ? 'Leader' : 'Follower')));
  });

  it('answers /api/cluster/healthy with true', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    expect((await sim.get('/api/cluster/healthy')).json).toEqual({ code: 0, message: 'success', data: true });
  });
});

describe('health probes', () => {
  it('/health/ready: 200 while the ports are ready, 503 with code 0 when not', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    const ready = await sim.get('/health/ready', { peer: '10.0.0.9' }); // open: no token needed
    expect(ready.status).toBe(200);
    expect(ready.json.data).toEqual({ status: 'ok', check_type: 'ready', message: 'all configured ports are ready' });
    sim.cluster.nodes.setPortsReady(2, false);
    const notReady = await sim.get('/health/ready', { nodeId: 2 });
    expect(notReady.status).toBe(503);
    expect(notReady.json).toEqual({
      code: 0,
      message: 'success',
      data: { status: 'not_ready', check_type: 'ready', message: 'one or more configured ports are not ready' },
    });
    expect(contractProblems('health.ready', notReady.json.data)).toBe('');
    expect((await sim.get('/health/ready', { nodeId: 1 })).status).toBe(200);
  });

  it('/health/node says the node is alive; /health/cluster turns degraded when a node stops', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    expect((await sim.get('/health/node', { nodeId: 3 })).json.data).toEqual({
      status: 'ok',
      check_type: 'node',
      message: 'node 3 is alive',
    });
    const ok = (await sim.get('/health/cluster')).json.data;
    expect(ok).toEqual({ status: 'ok', check_type: 'cluster', message: '3 of 3 nodes online; every consensus group has a leader' });
    sim.cluster.nodes.stop(2);
    sim.cluster.nodes.stop(3);
    sim.advance(2_000); // a leader left without a quorum steps down (check-quorum)
    const degraded = (await sim.get('/health/cluster')).json.data;
    expect(degraded.status).toBe('degraded');
    expect(degraded.message).toBe('1 of 3 nodes online; nodes 2, 3 offline; no leader in groups meta, mqtt, offset, data');
    expect(contractProblems('health.cluster', degraded)).toBe('');
  });
});
