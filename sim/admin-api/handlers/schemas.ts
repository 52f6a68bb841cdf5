import { VersionedRows } from '../../model/api/versioned-rows.ts';
import { endpoints } from '../../../contract/endpoints/schemas.ts';
import type { EndpointParams } from '../../../contract/param-types.ts';
import type { SchemaBinding } from '../../model/broker/schemas.ts';
import { handlersFor } from '../core/handler-types.ts';

/** The filters of the schema-bind list, as its contract entry declares them. */
type BindListParams = EndpointParams<(typeof endpoints)[number] & { readonly id: 'cluster.schema-bind.list' }>;

interface BindRow {
  data_type: 'resource' | 'schema';
  tenant: string;
  name: string;
  data: string[];
}

/** Groups bindings the way the real server reports them: per resource or per schema. */
function bindRows(bindings: SchemaBinding[], params: BindListParams): BindRow[] {
  const rows: BindRow[] = [];
  const inTenant = (b: SchemaBinding): boolean => params.tenant === undefined || b.tenant === params.tenant;
  const byResource = (tenant: string, resource: string): BindRow => ({
    data_type: 'resource',
    tenant,
    name: resource,
    data: bindings.filter((b) => b.tenant === tenant && b.resource_name === resource).map((b) => b.schema_name),
  });
  if (params.resource_name !== undefined) {
    const tenants = [...new Set(bindings.filter((b) => inTenant(b) && b.resource_name === params.resource_name).map((b) => b.tenant))];
    for (const t of tenants) rows.push(byResource(t, params.resource_name));
  }
  if (params.schema_name !== undefined) {
    const tenants = [...new Set(bindings.filter((b) => inTenant(b) && b.schema_name === params.schema_name).map((b) => b.tenant))];
    for (const t of tenants) {
      rows.push({
        data_type: 'schema',
        tenant: t,
        name: params.schema_name,
        data: bindings.filter((b) => b.tenant === t && b.schema_name === params.schema_name).map((b) => b.resource_name),
      });
    }
  }
  if (params.resource_name === undefined && params.schema_name === undefined) {
    // Every resource's schemas in one pass (binding order), rows in the order resources first appear.
    // Rows are found by tenant, then resource (no key strings joined per binding).
    const rowOf = new Map<string, Map<string, BindRow>>();
    for (const b of bindings) {
      if (!inTenant(b)) continue;
      let resources = rowOf.get(b.tenant);
      if (!resources) rowOf.set(b.tenant, (resources = new Map()));
      const row = resources.get(b.resource_name);
      if (row) row.data.push(b.schema_name);
      else {
        const added: BindRow = { data_type: 'resource', tenant: b.tenant, name: b.resource_name, data: [b.schema_name] };
        resources.set(b.resource_name, added);
        rows.push(added);
      }
    }
  }
  return rows;
}

export const handlers = handlersFor(endpoints, {
  'cluster.schema.list': ({ cluster }) => cluster.schemas.listing(),
  'cluster.schema.create': ({ cluster, params }) => {
    cluster.schemas.create({
      tenant: params.tenant,
      name: params.schema_name,
      schema_type: params.schema_type,
      schema: params.schema,
      desc: params.desc ?? '',
    });
    return 'success';
  },
  'cluster.schema.delete': ({ cluster, params }) => {
    cluster.schemas.delete(params.tenant, params.schema_name);
    return 'success';
  },
  'cluster.schema-bind.list': ({ cluster, params }) =>
    new VersionedRows(cluster.schemas.bindingsVersion(), () => bindRows(cluster.schemas.allBindings(), params)),
  'cluster.schema-bind.create': ({ cluster, params }) => {
    cluster.schemas.bind(params.tenant, params.schema_name, params.resource_name);
    return 'success';
  },
  'cluster.schema-bind.delete': ({ cluster, params }) => {
    cluster.schemas.unbind(params.tenant, params.schema_name, params.resource_name);
    return 'success';
  },
});
