import { TENANT_QUOTA_FIELDS } from '../../../contract/endpoints/tenants.ts';
import { familyEndpoint, familyTag } from '../../../contract/family-rules.ts';
import type { ApiContract, EndpointContract, ResourceFamilyContract } from '../../../contract/core/types.ts';

/**
 * The families the reference model covers, read from the contract (Resources and Endpoints
 * sections; blacklist and schemas are "given only by method and path", so their rules are the
 * reference notes' and checked at INFO): every family whose list shows its instances by name, unless
 * the contract says why not (`unmodelled`). A binding family (schema bindings) rides with the family
 * it attaches to. Each property is named by its endpoints' tag (`model.tenants`).
 */

export interface FamilyEndpoints {
  create: EndpointContract;
  delete: EndpointContract;
  list: EndpointContract;
  update?: EndpointContract;
}

/** A binding family and its endpoints, inside the property of the family it attaches to. */
export interface BindingFamily {
  family: ResourceFamilyContract;
  endpoints: { create: EndpointContract; delete: EndpointContract; list: EndpointContract };
}

export interface ModelledFamily {
  family: ResourceFamilyContract;
  /** The contract tag of its endpoints: the property is `model.<tag>`, its tenant `pt<seed>-<tag>`. */
  tag: string;
  endpoints: FamilyEndpoints;
  binding?: BindingFamily;
}

function needed(api: ApiContract, f: ResourceFamilyContract, role: 'create' | 'delete' | 'list'): EndpointContract {
  const e = familyEndpoint(api.endpoints, f, role);
  if (!e)
    throw new Error(`resource family ${f.key} names ${role} endpoint ${f.endpoints[role] ?? '(none)'}, which the contract does not have`);
  return e;
}

/** Does the reference model cover this family on its own (not as a binding)? */
export function isModelled(f: ResourceFamilyContract): boolean {
  return f.listing !== undefined && f.endpoints.list !== undefined && f.unmodelled === undefined && f.attachesTo === undefined;
}

/** The binding family attached to `f`, with its endpoints, if any. */
function bindingOf(api: ApiContract, f: ResourceFamilyContract): BindingFamily | undefined {
  const b = api.families.find((x) => x.attachesTo === f.key);
  if (!b) return undefined;
  return { family: b, endpoints: { create: needed(api, b, 'create'), delete: needed(api, b, 'delete'), list: needed(api, b, 'list') } };
}

/** Every family the reference model covers, in the contract's order. */
export function modelledFamilies(api: ApiContract): ModelledFamily[] {
  return api.families.filter(isModelled).map((family) => {
    const tag = familyTag(api, family);
    if (tag === undefined) throw new Error(`the endpoints of resource family ${family.key} carry more than one tag`);
    const update = familyEndpoint(api.endpoints, family, 'update');
    const binding = bindingOf(api, family);
    return {
      family,
      tag,
      endpoints: {
        create: needed(api, family, 'create'),
        delete: needed(api, family, 'delete'),
        list: needed(api, family, 'list'),
        ...(update ? { update } : {}),
      },
      ...(binding ? { binding } : {}),
    };
  });
}

/** The spec's tenant quota defaults (Resources: Tenant). */
export const QUOTA_DEFAULTS: Readonly<Record<string, number>> = Object.fromEntries(
  TENANT_QUOTA_FIELDS.map((f) => [f.name, f.default as number]),
);
