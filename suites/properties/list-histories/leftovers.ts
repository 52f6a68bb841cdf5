import { buildParams } from '../../../contract/minimal-params.ts';
import type { PropertyClient } from '../core/property-client.ts';
import type { HistoryFamily } from './list-families.ts';

/**
 * Leftovers of an interrupted invocation with the same seed: tenants whose name holds the seed's
 * stem (`h<seed>x`, never written by anything else), with what the histories put in them (bindings
 * first, then instances, then the tenant). Answers are not judged. Returns how many were deleted.
 */
export async function sweepLeftovers(
  client: PropertyClient,
  tenants: HistoryFamily,
  families: readonly HistoryFamily[],
  stem: string,
): Promise<number> {
  const nameFilter = tenants.filters.find((f) => f.source.kind === 'name');
  if (!nameFilter) return 0;
  const rowsOf = (data: unknown): Record<string, unknown>[] => {
    const rows = (data as { data?: unknown } | undefined)?.data;
    return Array.isArray(rows) ? rows.filter((r): r is Record<string, unknown> => r !== null && typeof r === 'object') : [];
  };
  const listed = await client.call(tenants.endpoints.list, { [nameFilter.param]: stem, limit: 10_000, page: 1 });
  const names = rowsOf(listed.envelope?.data)
    .map((r) => r[tenants.family.listing!.nameField])
    .filter((n): n is string => typeof n === 'string' && n.includes(stem));
  let deleted = 0;
  for (const tenant of names) {
    for (const h of [...families].reverse()) {
      const f = h.family;
      if (!f.scopeParam) continue;
      const rows = rowsOf((await client.call(h.endpoints.list, { [h.filters[0].param]: tenant, limit: 10_000, page: 1 })).envelope?.data);
      for (const row of rows) {
        if (row[f.listing!.tenantField ?? f.scopeParam] !== tenant) continue;
        const name = row[f.listing!.nameField];
        if (typeof name !== 'string') continue;
        if (h.binding) {
          const b = h.binding;
          const bound = rowsOf(
            (await client.call(b.list, { [b.family.scopeParam ?? 'tenant']: tenant, schema_name: name, limit: 10_000, page: 1 })).envelope
              ?.data,
          );
          for (const r of bound)
            for (const resource of r.data_type === 'schema' && Array.isArray(r.data) ? r.data : [])
              await client.call(b.delete, {
                [b.family.scopeParam ?? 'tenant']: tenant,
                schema_name: name,
                [b.family.nameParam]: String(resource),
              });
        }
        await client.call(h.endpoints.delete, buildParams(h.endpoints.delete, { [f.scopeParam]: tenant, [f.nameParam]: name }));
        deleted++;
      }
    }
    await client.call(tenants.endpoints.delete, buildParams(tenants.endpoints.delete, { [tenants.family.nameParam]: tenant }));
    deleted++;
  }
  return deleted;
}
