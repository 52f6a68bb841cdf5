import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';

describe('topic rewrite rules', () => {
  it('rewrites with regex groups, latest rule first, and refuses an invalid regex', async () => {
    const sim = new InProcessSim();
    const base = { tenant: 'default', action: 'All', source_topic: 'x/+/z/#', dest_topic: 'x/z/$2', regex: '^x/(.+)/z/(.+)$' };
    expect((await sim.post('/api/cluster/topic-rewrite/create', { name: 'r1', ...base })).json.code).toBe(0);
    expect(sim.cluster.rewriteRules.rewrite('default', 'x/a/z/b', 'Publish')).toBe('x/z/b');
    expect(sim.cluster.rewriteRules.rewrite('default', 'y/a/z/b', 'Publish')).toBe('y/a/z/b');
    await sim.post('/api/cluster/topic-rewrite/create', { name: 'r2', ...base, dest_topic: 'x/$1' });
    expect(sim.cluster.rewriteRules.rewrite('default', 'x/a/z/b', 'Subscribe')).toBe('x/a');
    const bad = await sim.post('/api/cluster/topic-rewrite/create', { name: 'r3', ...base, regex: '(' });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('regex');
    const dup = await sim.post('/api/cluster/topic-rewrite/create', { name: 'r1', ...base });
    expect(dup.json.code).toBe(1);
    const list = await sim.get('/api/cluster/topic-rewrite/list?name=r&sort_field=name&sort_by=desc');
    expect(list.json.data.data.map((r: any) => r.name)).toEqual(['r2', 'r1']);
    expect((await sim.post('/api/cluster/topic-rewrite/delete', { tenant: 'default', name: 'r1' })).json.code).toBe(0);
    expect((await sim.post('/api/cluster/topic-rewrite/delete', { tenant: 'default', name: 'r1' })).json.code).toBe(1);
  });
});
