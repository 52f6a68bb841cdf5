import axios from 'axios';
import { describe, expect, it } from 'vitest';
import { InProcessSim } from './in-process-client.ts';

/**
 * What the real server accepts and the spec does not forbid, in the spec dialect too (issue 12, item 2):
 * unknown sort fields are ignored, a sort_by other than `asc` sorts descending, and the array and
 * object encodings axios puts in a query string (the RobustMQ dashboard sends its params through
 * axios' default serializer) are read or ignored, never refused. URLs are built by axios itself.
 */
const url = (path: string, params: Record<string, unknown>): string => axios.getUri({ url: path, params });

async function seeded(): Promise<InProcessSim> {
  const sim = new InProcessSim({ workload: 'none' });
  for (const name of ['delta', 'alpha', 'charlie', 'bravo']) {
    const res = await sim.post('/api/cluster/tenant/create', { tenant_name: name, desc: `tenant ${name}` });
    expect(res.json.code).toBe(0);
    sim.advance(1000);
  }
  return sim;
}

const names = (res: { json: any }): string[] => res.json.data.data.map((t: { tenant_name: string }) => t.tenant_name);

describe('lenient list parameters (decisions unknown-sort-field-ignored, unknown-sort-by-desc)', () => {
  it('ignores a sort_field the list does not have: the order without one, nothing refused', async () => {
    const sim = await seeded();
    const plain = await sim.get('/api/cluster/tenant/list');
    expect(plain.status).toBe(200);
    for (const sortBy of ['asc', 'desc', undefined]) {
      const res = await sim.get(url('/api/cluster/tenant/list', { sort_field: 'resource_name', sort_by: sortBy }));
      expect(res.status, sortBy).toBe(200);
      expect(names(res)).toEqual(names(plain));
    }
  });

  it('sorts descending for any sort_by but exactly asc, ascending when absent', async () => {
    const sim = await seeded();
    const asc = names(await sim.get('/api/cluster/tenant/list?sort_field=tenant_name&sort_by=asc'));
    expect(asc).toEqual(['alpha', 'bravo', 'charlie', 'default', 'delta']);
    expect(names(await sim.get('/api/cluster/tenant/list?sort_field=tenant_name'))).toEqual(asc);
    for (const by of ['desc', 'DESC', 'ASC', 'sideways', '']) {
      expect(names(await sim.get(`/api/cluster/tenant/list?sort_field=tenant_name&sort_by=${by}`)), by).toEqual([...asc].reverse());
    }
  });

  it('reads filter_values in the encodings axios sends (bracketed, percent-encoded brackets)', async () => {
    const sim = await seeded();
    const bracketed = url('/api/cluster/tenant/list', {
      filter_field: 'tenant_name',
      filter_values: ['alpha', 'delta'],
      exact_match: 'true',
    });
    // axios 1.21 percent-encodes the brackets; the 1.10-1.12 releases sent them literally.
    expect(bracketed).toContain('filter_values%5B%5D=alpha');
    expect(names(await sim.get(bracketed)).sort()).toEqual(['alpha', 'delta']);
    const literal = bracketed.replace(/%5B%5D/g, '[]');
    expect(names(await sim.get(literal)).sort()).toEqual(['alpha', 'delta']);
    const indexed = axios.getUri({
      url: '/api/cluster/tenant/list',
      params: { filter_field: 'tenant_name', filter_values: ['bravo'] },
      paramsSerializer: { indexes: true },
    });
    expect(indexed).toContain('filter_values%5B0%5D=bravo');
    expect(names(await sim.get(indexed))).toEqual(['bravo']);
  });

  it('ignores the nested objects the dashboard passes through unconverted (pagination[..], filers[0][..])', async () => {
    const sim = await seeded();
    const plain = await sim.get('/api/cluster/tenant/list');
    const tenants = await sim.get(url('/api/cluster/tenant/list', { pagination: { offset: 0, limit: 20 } }));
    expect(tenants.status).toBe(200);
    expect(tenants.json.data).toEqual(plain.json.data);
    const clients = await sim.get(
      url('/api/mqtt/client/list', { limit: 100, page: 1, filers: [{ field: 'client_id', valueList: ['c1'] }] }),
    );
    expect(clients.status).toBe(200);
    expect(clients.json.code).toBe(0);
  });

  it("answers the dashboard list pages' sorts: client list by connection_id desc, session list and connector list by create_time desc", async () => {
    const sim = new InProcessSim({ workload: 'demo' });
    sim.advance(60_000);
    const clients = await sim.get(url('/api/mqtt/client/list', { sort_field: 'connection_id', sort_by: 'desc', limit: 20, page: 1 }));
    expect(clients.status).toBe(200);
    const ids = clients.json.data.data.map((c: { connection_id: number }) => c.connection_id);
    expect(ids.length).toBeGreaterThan(1);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    const sessions = await sim.get(url('/api/mqtt/session/list', { sort_field: 'create_time', sort_by: 'desc', limit: 20, page: 1 }));
    const times = sessions.json.data.data.map((s: { create_time: number }) => s.create_time);
    expect(times.length).toBeGreaterThan(1);
    expect(times).toEqual([...times].sort((a: number, b: number) => b - a));
    // create_time is no sort field of the connector list (spec: connector_name, tenant): ignored.
    const connectors = await sim.get(
      url('/api/cluster/connector/list', { sort_field: 'create_time', sort_by: 'desc', limit: 20, page: 1 }),
    );
    expect(connectors.status).toBe(200);
    expect(connectors.json.data).toEqual((await sim.get('/api/cluster/connector/list?limit=20&page=1')).json.data);
  });
});
