import { afterAll, describe, expect, it } from 'vitest';
import { CONTRACT } from '../../contract/index.ts';
import { runConform } from '../run/runner.ts';
import { SIM_ADMIN, SimTarget } from '../targets/sim-target.ts';
import { UrlTarget } from '../targets/url-target.ts';
import { startProxy } from './test-proxy.ts';

/**
 * A seeded deviation in one family is found by the right check on the right endpoint, and nowhere
 * else: a proxy in front of the simulator makes every tenant at the default quota show max_topics
 * 5000 instead of the spec's 5000000 (a server whose default is wrong by a factor of 1000).
 */

const sim = await SimTarget.start({ seed: 11, transport: 'loopback' });
const proxy = await startProxy(sim.baseUrl, {
  rewrite: (method, path, _status, body) => {
    if (method !== 'GET' || path !== '/api/cluster/tenant/list') return undefined;
    const json = JSON.parse(body);
    for (const row of json?.data?.data ?? []) if (row.config?.max_topics === 5_000_000) row.config.max_topics = 5000;
    return JSON.stringify(json);
  },
});
afterAll(async () => {
  await proxy.close();
  await sim.close();
});

describe('a seeded deviation: the tenant default quota', () => {
  it('fails tenant.default-quota on POST /api/cluster/tenant/create (and the tenants model property), nothing else', async () => {
    const target = await UrlTarget.create({ url: proxy.url, username: SIM_ADMIN.username, password: SIM_ADMIN.password });
    const tags = new Set(['tenants', 'cluster-status', 'config']);
    const report = await runConform({ target, seed: 11, contract: CONTRACT.filter((e) => tags.has(e.tag)) }).finally(() => target.close());
    const failures = report.endpoints.flatMap((e) =>
      e.checks
        .filter((c) => c.status === 'fail')
        .map((c) => ({ endpoint: `${e.method} ${e.path}`, id: c.id, level: c.level, message: c.message })),
    );
    // The scenario check names the field; the property-based model of the tenants family, written
    // from the same spec table, sees the listed quota differ from the defaults too.
    expect(failures.map((f) => `${f.endpoint} ${f.id} ${f.level}`).sort()).toEqual([
      'GET /api/cluster/tenant/list property.model.tenants MUST',
      'POST /api/cluster/tenant/create tenant.default-quota MUST',
    ]);
    expect(failures.find((f) => f.id === 'tenant.default-quota')!.message).toBe(
      'quota fields without their defaults: max_topics 5000 (default 5000000)',
    );
  });
});
