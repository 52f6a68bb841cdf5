import { describe, expect, it } from 'vitest';
import { hasAssertion } from '../../contract/assertions/index.ts';
import { CONTRACT } from '../../contract/index.ts';
import { InProcessSim } from '../admin-api/in-process-client.ts';
import { AppliedDeviations } from '../admin-api/hooks/applied-deviations.ts';
import { resolveDeviations, UnknownDeviationError } from './resolve-switches.ts';
import { DEVIATIONS, DEVIATION_IDS } from './catalogue.ts';

const endpointIds = new Set(CONTRACT.map((e) => e.id));
const tags = new Set(CONTRACT.map((e) => e.tag));

describe('the deviation catalogue', () => {
  it('holds at least 25 distinct deviations the suites catch, each documented and tied to an endpoint', () => {
    expect(new Set(DEVIATION_IDS).size).toBe(DEVIATION_IDS.length);
    expect(DEVIATIONS.filter((d) => d.caught).length).toBeGreaterThanOrEqual(25);
    for (const d of DEVIATIONS) {
      expect(d.id, d.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)+$/);
      expect(endpointIds.has(d.endpoint), `${d.id}: endpoint ${d.endpoint}`).toBe(true);
      expect(d.description.length, d.id).toBeGreaterThan(20);
      expect(d.description, d.id).not.toContain('\n');
      expect(['breaks', 'allows'], d.id).toContain(d.spec);
      // A deviation that must be caught names the checks; an allowed behaviour may name none.
      if (d.spec === 'breaks' && d.caught) expect(d.checks.length, d.id).toBeGreaterThan(0);
      if (d.spec === 'allows') expect(d.caught, `${d.id} is allowed by the spec: no check may catch it`).toBe(false);
      if (d.notes !== undefined) expect(d.rule?.length ?? 0, `${d.id} reproduces the real server: quote the spec rule`).toBeGreaterThan(20);
      for (const id of d.alsoEndpoints ?? []) expect(endpointIds.has(id), `${d.id}: also-endpoint ${id}`).toBe(true);
      expect(Object.keys(d.hooks).length, `${d.id} changes nothing`).toBeGreaterThan(0);
      for (const t of d.tags ?? []) expect(tags.has(t), `${d.id}: tag ${t}`).toBe(true);
      if (!d.caught) expect(d.reason?.length ?? 0, `${d.id} is not caught: say why`).toBeGreaterThan(40);
      // The finding a run must report: an assertion of the contract, or <cause>@<endpoint id>.
      if (d.finding !== undefined)
        expect(hasAssertion(d.finding) || /^(server-error|transport|non-json)@/.test(d.finding), `${d.id}: finding ${d.finding}`).toBe(
          true,
        );
    }
  });

  it('covers many endpoints and every kind of bug', () => {
    expect(new Set(DEVIATIONS.map((d) => d.endpoint)).size).toBeGreaterThanOrEqual(20);
    const hookKinds = new Set(DEVIATIONS.flatMap((d) => Object.keys(d.hooks)));
    expect([...hookKinds].sort()).toEqual(['around', 'rateLimit', 'request', 'response', 'routes', 'validation']);
  });

  it('refuses unknown ids, naming them and the known ones', () => {
    expect(() => resolveDeviations(['topic-list-limit-ignored', 'no-such-bug'])).toThrow(UnknownDeviationError);
    expect(() => resolveDeviations(['no-such-bug'])).toThrow(/"no-such-bug".*known: .*topic-list-limit-ignored/);
    expect(resolveDeviations(['topic-list-limit-ignored', 'topic-list-limit-ignored']).length).toBe(1);
  });
});

describe('switching deviations on', () => {
  it('changes nothing without deviations', async () => {
    const plain = new InProcessSim({ workload: 'demo', seed: 3 });
    const none = new InProcessSim({ workload: 'demo', seed: 3 }, { deviations: [] });
    for (const url of ['/api/cluster/tenant/list?limit=2&page=2', '/api/cluster/user/list?sort_field=username&sort_by=desc']) {
      expect((await none.get(url)).text).toBe((await plain.get(url)).text);
    }
  });

  it('really breaks the behaviour (paging, records, envelope, validation, auth)', async () => {
    const sim = new InProcessSim(
      { workload: 'demo', seed: 3 },
      {
        deviations: resolveDeviations([
          'topic-list-limit-ignored',
          'user-list-is-superuser-missing',
          'topic-detail-success-code-1',
          'tenant-create-name-length-unenforced',
          'user-list-auth-skipped',
        ]),
      },
    );
    const topics = await sim.get('/api/cluster/topic/list?limit=2');
    expect(topics.json.data.data.length).toBeGreaterThan(2);
    const users = await sim.get('/api/cluster/user/list');
    expect(users.json.data.data.length).toBeGreaterThan(0);
    for (const u of users.json.data.data) expect(u).not.toHaveProperty('is_superuser');
    const first = topics.json.data.data[0];
    const detail = await sim.get(
      `/api/cluster/topic/detail?tenant=${encodeURIComponent(first.tenant)}&topic_name=${encodeURIComponent(first.topic_name)}`,
    );
    expect(detail.json.code).toBe(1);
    expect((await sim.post('/api/cluster/tenant/create', { tenant_name: 'x'.repeat(129) })).json.code).toBe(0);
    expect((await sim.get('/api/cluster/user/list', { peer: '10.0.0.9' })).status).toBe(200);
    expect((await sim.get('/api/cluster/tenant/list', { peer: '10.0.0.9' })).status).toBe(401);
  });

  it('composes around hooks outermost first and passes a changed contract inwards', async () => {
    const sim = new InProcessSim({ workload: 'demo', seed: 3 });
    const applied = new AppliedDeviations(
      resolveDeviations(['blacklist-list-fuzzy-filter-as-exact', 'blacklist-list-type-lower-case']),
      sim.cluster,
    );
    const list = CONTRACT.find((e) => e.id === 'cluster.blacklist.list')!;
    const seen: string[] = [];
    const out = (await applied.around(list, { name: 'rogue' }, async (_p, e = list) => {
      seen.push(e.params.find((p) => p.name === 'name')!.match!);
      return { data: [{ blacklist_type: 'ClientId' }], total_count: 1 };
    })) as { data: { blacklist_type: string }[] };
    expect(seen).toEqual(['exact']);
    expect(out.data[0].blacklist_type).toBe('clientid');
  });
});
