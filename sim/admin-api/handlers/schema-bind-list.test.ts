import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endpointById } from '../../../contract/index.ts';
import type { SchemaBinding } from '../../model/broker/schemas.ts';
import type { HandlerContext, PeerTransport } from '../core/handler-types.ts';
import { InProcessSim } from '../in-process-client.ts';
import { HANDLERS } from './index.ts';
import { VersionedRows } from '../../model/api/versioned-rows.ts';

/** The rows of the list without filters as first written: per resource, a scan of every binding. */
function rowsByScan(bindings: SchemaBinding[], tenant: string | undefined): unknown[] {
  const rows: unknown[] = [];
  const seen = new Set<string>();
  for (const b of bindings.filter((x) => tenant === undefined || x.tenant === tenant)) {
    const key = `${b.tenant}\u0000${b.resource_name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const data = bindings.filter((x) => x.tenant === b.tenant && x.resource_name === b.resource_name).map((x) => x.schema_name);
    rows.push({ data_type: 'resource', tenant: b.tenant, name: b.resource_name, data });
  }
  return rows;
}

const noPeers: PeerTransport = { call: () => Promise.reject(new Error('no peer calls in a list')) };

describe('schema-bind list without filters', () => {
  it('groups every resource in one pass exactly as a scan per resource does', () => {
    const op = fc.record({
      bind: fc.boolean(),
      tenant: fc.constantFrom('default', 'ta'),
      schema: fc.constantFrom('s1', 's2', 's3'),
      resource: fc.constantFrom('r/1', 'r/2', 'r/3', 'r/4'),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.constantFrom(undefined, 'default', 'ta'), (ops, tenant) => {
        const sim = new InProcessSim({ seed: 'schema-bind', workload: 'none', nodes: 1 });
        const { cluster } = sim;
        for (const t of ['default', 'ta'])
          for (const name of ['s1', 's2', 's3']) cluster.schemas.create({ tenant: t, name, schema_type: 'json', schema: '{}', desc: '' });
        for (const o of ops) {
          try {
            if (o.bind) cluster.schemas.bind(o.tenant, o.schema, o.resource);
            else cluster.schemas.unbind(o.tenant, o.schema, o.resource);
          } catch {
            // unbinding what is not bound is refused: nothing changes
          }
        }
        const endpoint = endpointById('cluster.schema-bind.list');
        const params = tenant === undefined ? {} : { tenant };
        const ctx: HandlerContext = { cluster, node: cluster.nodes.get(1)!, params, endpoint, peers: noPeers };
        const listed = HANDLERS['cluster.schema-bind.list'](ctx);
        expect(listed).toBeInstanceOf(VersionedRows);
        expect((listed as VersionedRows<unknown>).rows()).toEqual(rowsByScan(cluster.schemas.allBindings(), tenant));
      }),
      { numRuns: 200 },
    );
  });

  it('is answered afresh after every bind and unbind, and kept in between (verified afresh)', async () => {
    const op = fc.record({
      bind: fc.boolean(),
      schema: fc.constantFrom('s1', 's2'),
      resource: fc.constantFrom('r/1', 'r/2', 'r/3'),
      asks: fc.integer({ min: 0, max: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
        const sim = new InProcessSim({ seed: 'schema-bind', workload: 'none', nodes: 1 }, { verifyWriters: true });
        for (const name of ['s1', 's2'])
          sim.cluster.schemas.create({ tenant: 'default', name, schema_type: 'json', schema: '{}', desc: '' });
        for (const o of ops) {
          await sim.post(`/api/cluster/schema-bind/${o.bind ? 'create' : 'delete'}`, {
            tenant: 'default',
            schema_name: o.schema,
            resource_name: o.resource,
          });
          for (let i = 0; i < o.asks; i++) {
            const listed = await sim.get('/api/cluster/schema-bind/list?tenant=default');
            expect(listed.status, listed.text).toBe(200);
            expect(listed.json.data.data).toEqual(rowsByScan(sim.cluster.schemas.allBindings(), 'default'));
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
