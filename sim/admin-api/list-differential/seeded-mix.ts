/**
 * The measurement of the user report on wrong list answers, as a function: a seeded random mix of
 * tenant, user and ACL creates, updates and deletes (POSTs through the app) and list reads (GETs:
 * a contains filter on the name, sort_field, asc or desc, limit, page), each read's answer compared
 * byte for byte with the reference answer. Unlike the differential test it does not stop at the
 * first difference: it counts them, to say how often a history of this kind met the bug.
 */
import fc from 'fast-check';
import { historySim } from './list-history.ts';
import { describeQuery, urlOf, type ListQuery } from './list-queries.ts';
import { referenceAnswer } from './reference-answer.ts';

export interface SeededMixResult {
  readonly writes: number;
  readonly reads: number;
  /** Reads whose answer differed from the reference's. */
  readonly differing: number;
  /** The first few differing reads. */
  readonly examples: readonly string[];
}

type MixOp = { write: string; body: Record<string, unknown> } | { read: ListQuery };

const TENANTS = ['pgx_000', 'pgx_001', 'pgx_002', 'pgx_003', 'pgx_004', 'pgx_010', 'pgy_000'];
const NAMES = ['u_0', 'u_1', 'u_10', 'u_2', 'v_0'];
const tenantArb = fc.constantFrom(...TENANTS);
const nameArb = fc.constantFrom(...NAMES);

const WRITES: fc.Arbitrary<MixOp>[] = [
  fc
    .record({ tenant_name: tenantArb, desc: fc.constantFrom('', 'fleet', 'staging') })
    .map((body) => ({ write: '/api/cluster/tenant/create', body })),
  fc
    .record({ tenant_name: tenantArb, desc: fc.constantFrom('', 'fleet 2', 'prod') })
    .map((body) => ({ write: '/api/cluster/tenant/update', body })),
  tenantArb.map((tenant_name) => ({ write: '/api/cluster/tenant/delete', body: { tenant_name } })),
  fc
    .record({ tenant: tenantArb, username: nameArb, is_superuser: fc.boolean() })
    .map((r) => ({ write: '/api/cluster/user/create', body: { ...r, password: 'pw-secret' } })),
  fc.record({ tenant: tenantArb, username: nameArb }).map((body) => ({ write: '/api/cluster/user/delete', body })),
  fc.record({ tenant: tenantArb, name: nameArb, resource_name: nameArb, permission: fc.constantFrom('Allow', 'Deny') }).map((r) => ({
    write: '/api/cluster/acl/create',
    body: { ...r, resource_type: 'ClientId', topic: 'x/#', ip: '', action: 'All' },
  })),
  fc.record({ tenant: tenantArb, name: nameArb }).map((body) => ({ write: '/api/cluster/acl/delete', body })),
];

/** A read: the list's name filter (contains), sort field, direction, limit and page, each now and then. */
function readArb(id: string, filter: string, values: readonly string[], sortFields: readonly string[]): fc.Arbitrary<MixOp> {
  const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq: 3 });
  return fc
    .record({
      filter: fc.option(fc.constantFrom(...values), { nil: undefined, freq: 4 }),
      sort_field: maybe(fc.constantFrom(...sortFields)),
      sort_by: maybe(fc.constantFrom('asc', 'desc')),
      limit: maybe(fc.constantFrom(1, 2, 3, 5)),
      page: maybe(fc.constantFrom(1, 2, 3)),
    })
    .map((r) => {
      const params: [string, string | number][] = [];
      if (r.filter !== undefined) params.push([filter, r.filter]);
      for (const k of ['limit', 'page', 'sort_field', 'sort_by'] as const) if (r[k] !== undefined) params.push([k, r[k]]);
      return { read: { id, nodeId: 1, params } };
    });
}

const READS: fc.Arbitrary<MixOp>[] = [
  readArb('cluster.tenant.list', 'tenant_name', ['pgx', 'pgx_00', 'pg', '1', '_0'], ['tenant_name', 'create_time']),
  readArb('cluster.user.list', 'user_name', ['u', 'u_1', '0', '_'], ['username', 'tenant', 'create_time']),
  readArb('cluster.acl.list', 'name', ['u', 'u_1', '0', '_'], ['name', 'tenant', 'resource_name']),
];

/**
 * Runs `ops` operations drawn with `seed` (writes and reads about 3 to 5, so 1,000 operations make
 * about 630 reads) against a fresh app, the response cache on or off.
 */
export async function runSeededMix(options: { seed: number; ops: number; responseCache: boolean }): Promise<SeededMixResult> {
  const opArb = fc.oneof({ weight: 37, arbitrary: fc.oneof(...WRITES) }, { weight: 63, arbitrary: fc.oneof(...READS) });
  const [ops] = fc.sample(fc.array(opArb, { minLength: options.ops, maxLength: options.ops }), { seed: options.seed, numRuns: 1 });
  const sim = historySim(options.responseCache);
  let writes = 0;
  let reads = 0;
  let differing = 0;
  const examples: string[] = [];
  for (const op of ops) {
    if ('write' in op) {
      writes++;
      await sim.post(op.write, op.body);
      continue;
    }
    reads++;
    const res = await sim.get(urlOf(op.read));
    const expected = await referenceAnswer(sim.cluster, op.read);
    if (res.status === expected.status && res.text === expected.body) continue;
    differing++;
    if (examples.length < 3) examples.push(`${describeQuery(op.read)}\n  answered  ${res.text}\n  reference ${expected.body}`);
  }
  return { writes, reads, differing, examples };
}
