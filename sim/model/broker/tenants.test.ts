import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';

describe('tenants', () => {
  it('creates with quota defaults, lists, updates partially and deletes', async () => {
    const sim = new InProcessSim();
    const created = await sim.post('/api/cluster/tenant/create', { tenant_name: 't1', desc: 'first', config: { max_topics: 7 } });
    expect(created.json).toEqual({ code: 0, message: 'success', data: 'success' });

    const list = await sim.get('/api/cluster/tenant/list?tenant_name=t1');
    expect(list.json.data.total_count).toBe(1);
    expect(list.json.data.data[0]).toMatchObject({
      tenant_name: 't1',
      desc: 'first',
      config: {
        max_connections_per_node: 10_000_000,
        max_create_connection_rate_per_second: 10_000,
        max_topics: 7,
        max_sessions: 50_000_000,
        max_publish_rate: 10_000,
      },
    });
    expect(list.json.data.data[0].create_time).toBe(Math.floor(sim.cluster.options.epochMs / 1000));

    await sim.post('/api/cluster/tenant/update', { tenant_name: 't1', config: { max_sessions: 3 } });
    const after = await sim.get('/api/cluster/tenant/list?tenant_name=t1');
    expect(after.json.data.data[0]).toMatchObject({ desc: 'first', config: { max_topics: 7, max_sessions: 3 } });

    expect((await sim.post('/api/cluster/tenant/delete', { tenant_name: 't1' })).json.code).toBe(0);
    expect((await sim.get('/api/cluster/tenant/list?tenant_name=t1')).json.data.total_count).toBe(0);
  });

  it('refuses to update an unknown tenant with code 1 and a not-found text', async () => {
    const sim = new InProcessSim();
    const res = await sim.post('/api/cluster/tenant/update', { tenant_name: 'ghost' });
    expect(res.json.code).toBe(1);
    expect(res.json.message).toContain('ghost');
    expect(res.json.message).toContain('not found');
  });

  it('refuses a duplicate and names the invalid parameter of a bad body', async () => {
    const sim = new InProcessSim();
    await sim.post('/api/cluster/tenant/create', { tenant_name: 'dup' });
    expect((await sim.post('/api/cluster/tenant/create', { tenant_name: 'dup' })).json.code).toBe(1);
    const bad = await sim.post('/api/cluster/tenant/create', { tenant_name: 'x'.repeat(129) });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe(400);
    expect(bad.json.message).toContain('tenant_name');
    const wrongType = await sim.post('/api/cluster/tenant/create', { tenant_name: 'ok', config: { max_topics: 'many' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.message).toContain('config.max_topics');
  });

  it('pages 100 by default and honours sort both ways', async () => {
    const sim = new InProcessSim();
    // 50 requests per second per path (max_admin_http_uri_rate): keep within it on virtual time.
    for (let i = 0; i < 120; i++, sim.advance(20))
      await sim.post('/api/cluster/tenant/create', { tenant_name: `p${String(i).padStart(3, '0')}` });
    sim.advance(5_000); // leave the rate limiter's window
    const first = await sim.get('/api/cluster/tenant/list');
    expect(first.json.data.data).toHaveLength(100);
    expect(first.json.data.total_count).toBe(121);
    const desc = await sim.get('/api/cluster/tenant/list?sort_field=tenant_name&sort_by=desc&limit=3');
    expect(desc.json.data.data.map((t: any) => t.tenant_name)).toEqual(['p119', 'p118', 'p117']);
  });
});
