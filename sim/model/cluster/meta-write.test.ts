import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { CONTRACT, endpointById } from '../../../contract/index.ts';
import { metaWritePolicy } from '../nodes/meta-write-gate.ts';

const CREATE = '/api/cluster/tenant/create';
const tenants = async (sim: InProcessSim): Promise<string[]> =>
  (await sim.get('/api/cluster/tenant/list')).json.data.data.map((t: any) => t.tenant_name);
const metaLog = (sim: InProcessSim) => {
  const meta = sim.cluster.raft.get('meta')!;
  return meta.reference().log.entries.map((e) => e.kind);
};

describe('API writes through the meta consensus group', () => {
  it('classifies endpoints by their declared write class: metadata writes are checked first, node leave checks itself, reads are free', () => {
    const policy = (id: string) => metaWritePolicy(endpointById(id));
    expect(policy('cluster.tenant.create')).toBe('check-then-commit');
    expect(policy('cluster.config.set')).toBe('check-then-commit');
    expect(policy('storage.shard.delete')).toBe('check-then-commit');
    expect(policy('cluster.node.leave')).toBe('commit');
    for (const id of ['storage.shard.list', 'storage.segment.detail', 'mqtt.message.send', 'cluster.offset.commit', 'auth.login'])
      expect(policy(id)).toBe('none');
    for (const id of ['cluster.tenant.list', 'cluster.status']) expect(policy(id)).toBe('none');
  });

  it('every POST of the contract declares its write class, and a POST without one is refused', () => {
    const undeclared = CONTRACT.filter((e) => e.method === 'POST' && e.writeClass === undefined).map((e) => e.id);
    expect(undeclared).toEqual([]);
    const { writeClass: _dropped, ...bare } = endpointById('cluster.tenant.create');
    expect(() => metaWritePolicy(bare)).toThrow(/cluster\.tenant\.create declares no writeClass/);
  });

  it('answers a create once its meta entry is committed by a quorum, a round trip later in virtual time', async () => {
    const sim = new InProcessSim({ nodes: 3, seed: 3 });
    const before = sim.cluster.now();
    const res = await sim.post(CREATE, { tenant_name: 'acme' });
    expect(res.json.code).toBe(0);
    expect(sim.cluster.now() - before).toBeGreaterThan(0);
    expect(sim.cluster.now() - before).toBeLessThanOrEqual(20);
    const meta = sim.cluster.raft.get('meta')!;
    const leader = meta.node(meta.leaderId!)!;
    const entry = leader.log.entries.find((e) => e.kind === `api:${CREATE}`)!;
    expect(leader.commitIndex).toBeGreaterThanOrEqual(entry.index);
    expect([1, 2, 3].filter((id) => meta.node(id)!.log.uidAt(entry.index) === entry.uid).length).toBeGreaterThanOrEqual(2);
    expect(meta.core.audit.ackedCount()).toBe(1);
    expect(await tenants(sim)).toContain('acme');
  });

  it('refuses a metadata write while the meta group has no leader, before changing anything; reads still answer', async () => {
    const sim = new InProcessSim({ nodes: 3, seed: 3 });
    sim.cluster.nodes.crash(2);
    sim.cluster.nodes.crash(3);
    sim.advance(2_000);
    expect(sim.cluster.raft.metaLeaderId()).toBeNull();
    const traceBefore = sim.cluster.engine.trace.length;
    const res = await sim.post(CREATE, { tenant_name: 'acme' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      code: 1,
      message:
        'the meta consensus group has no leader (only 1 of its 3 voters are online, fewer than the quorum of 2); the request changed nothing, retry',
      data: null,
    });
    expect(
      sim.cluster.engine.trace
        .tail(10)
        .filter((t) => t.index >= traceBefore)
        .map((t) => t.kind),
    ).toEqual(['api.refused']);
    expect(await tenants(sim)).not.toContain('acme');
    // Bad input is still reported as such, and reads and login answer.
    expect((await sim.post(CREATE, {})).status).toBe(400);
    expect((await sim.post('/api/v1/login', { username: 'admin', password: 'admin' })).json.code).toBe(0);
    expect((await sim.get('/api/status')).json.code).toBe(0);
    // Back to a quorum: the write goes through.
    sim.cluster.nodes.restart(2);
    sim.advance(2_000);
    expect((await sim.post(CREATE, { tenant_name: 'acme' })).json.code).toBe(0);
  });

  it('a leader cut off right before the write: the entry is lost with it, proposed again to the new leader, then acknowledged', async () => {
    const sim = new InProcessSim({ nodes: 3, seed: 5 });
    const old = sim.cluster.raft.metaLeaderId()!;
    sim.cluster.network.isolate(old, [1, 2, 3]);
    const before = sim.cluster.now();
    const res = await sim.post(CREATE, { tenant_name: 'acme' }, { nodeId: old === 1 ? 2 : 1 });
    expect(res.json.code).toBe(0);
    const waited = sim.cluster.now() - before;
    expect(waited).toBeGreaterThan(300); // an election
    expect(waited).toBeLessThan(30_000);
    const leader = sim.cluster.raft.metaLeaderId()!;
    expect(leader).not.toBe(old);
    expect(metaLog(sim).filter((k) => k === `api:${CREATE}`)).toHaveLength(1);
    sim.cluster.network.heal();
    sim.advance(3_000);
    // The acknowledged entry survives the old leader's return; its uncommitted copy is gone.
    expect(sim.cluster.invariants.checkAll(sim.cluster.now(), 0)).toEqual([]);
    const meta = sim.cluster.raft.get('meta')!;
    expect(meta.node(old)!.log.entries.filter((e) => e.kind === `api:${CREATE}`)).toHaveLength(1);
  });

  it('without a quorum to commit within raft_write_timeout_sec, answers an error saying the change is unconfirmed', async () => {
    const sim = new InProcessSim({ nodes: 3, seed: 3 });
    const leader = sim.cluster.raft.metaLeaderId()!;
    for (const id of [1, 2, 3]) if (id !== leader) sim.cluster.nodes.crash(id);
    // The leader has not noticed yet (check-quorum takes an election timeout): the write is accepted.
    const before = sim.cluster.now();
    const res = await sim.post(CREATE, { tenant_name: 'acme' }, { nodeId: leader });
    expect(res.json.code).toBe(1);
    expect(res.json.message).toMatch(
      new RegExp(
        `^the meta consensus group did not commit the write within raft_write_timeout_sec \\(30 s\\): node ${leader}, leader of term 1, holds it at index \\d+ but reached no quorum\\. ` +
          'The change is made but unconfirmed: it may still commit or be discarded; read it back before retrying$',
      ),
    );
    expect(sim.cluster.now() - before).toBe(30_000);
    // What the client was told: unconfirmed. The model keeps the change; it was never acknowledged.
    expect(await tenants(sim)).toContain('acme');
    expect(sim.cluster.raft.get('meta')!.core.audit.ackedCount()).toBe(0);
    // With no leader at all, the next write is refused up front.
    const refused = await sim.post(CREATE, { tenant_name: 'other' }, { nodeId: leader });
    expect(refused.json.message).toMatch(/^the meta consensus group has no leader/);
  });

  it('a forced leave of the meta leader itself is answered once the new leader commits its entry', async () => {
    const sim = new InProcessSim({ nodes: 3, seed: 3 });
    const leader = sim.cluster.raft.metaLeaderId()!;
    const res = await sim.post('/api/cluster/node/leave', { node_id: leader, force: true });
    expect(res.json.code).toBe(0);
    const now = sim.cluster.raft.metaLeaderId()!;
    expect(now).not.toBeNull();
    expect(now).not.toBe(leader);
    expect(sim.cluster.raft.get('meta')!.voters).not.toContain(leader);
    expect(metaLog(sim)).toContain('api:/api/cluster/node/leave');
    expect(sim.cluster.invariants.checkAll(sim.cluster.now(), 0)).toEqual([]);
  });

  it('a long run of writes keeps the audit bounded: acknowledged writes far below every snapshot are forgotten, and still no violation', async () => {
    const sim = new InProcessSim({ nodes: 3, seed: 4 });
    sim.cluster.config.set('ClusterLimit', { max_admin_http_uri_rate: 1_000_000_000 });
    const audit = sim.cluster.raft.get('meta')!.core.audit;
    for (let i = 0; i < 15_000; i++) {
      expect((await sim.post(CREATE, { tenant_name: `t${i}` })).json.code).toBe(0);
      expect((await sim.post('/api/cluster/tenant/delete', { tenant_name: `t${i}` })).json.code).toBe(0);
    }
    // 30,000 acknowledged writes; without pruning every one would still be tracked.
    expect(audit.maxCommitted).toBeGreaterThan(30_000);
    expect(audit.ackedCount()).toBeLessThan(15_000);
    expect(audit.committedUid(audit.maxCommitted)).toBeDefined();
    expect(audit.committedUid(1)).toBeUndefined();
    expect(sim.cluster.raft.violations.all()).toEqual({});
  }, 60_000);
});
