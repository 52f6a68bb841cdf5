import type { ApiCall } from '../../sim/runs/chaos/chaos-plan.ts';
import { visibilityRules } from '../../contract/family-rules.ts';
import { API } from '../../contract/index.ts';
import type { ApiContract } from '../../contract/core/types.ts';

/**
 * Which resources the chaos plan's API calls make appear in (or leave) their lists, read from the
 * contract's resource families: a family's create and delete, and its own visibility rules (a
 * message send creates its topic). Families without a listing by name are not followed.
 */

/** What one acknowledged call does to the history: a resource of `family` exists, or is gone. */
export interface Effect {
  /** The family's key (`tenant`, `acl`, `topic`…). */
  family: string;
  /** The tenant it lives in ('' for an unscoped family). */
  tenant: string;
  name: string;
  present: boolean;
}

/** How the history reads one family's instances in one tenant: the request listing them all on one page, and the name field of a row. */
export interface HistoryList {
  method: 'GET' | 'POST';
  path: string;
  query: string;
  nameField: string;
}

/** The list request of the family with key `key` for `tenant` (the family must list its instances by name). */
export function historyList(key: string, tenant: string, api: ApiContract = API): HistoryList {
  const family = api.families.find((x) => x.key === key);
  const list = family && api.endpoints.find((e) => e.id === family.endpoints.list);
  if (!family?.listing || !list) throw new Error(`resource family ${key} has no list showing its instances`);
  const scope = family.scopeParam && family.listing.tenantQuery ? `${family.listing.tenantQuery}=${encodeURIComponent(tenant)}&` : '';
  return { method: list.method, path: list.path, query: `${scope}limit=10000`, nameField: family.listing.nameField };
}

/** What one call does to the history when it is acknowledged (code 0): a resource exists, or is gone. */
export function effectOf(call: ApiCall, api: ApiContract = API): Effect | null {
  const path = call.path.split('?')[0];
  const endpoint = api.endpoints.find((e) => e.method === call.method && e.path === path);
  if (!endpoint) return null;
  const b = call.body ?? {};
  const s = (k: string | undefined): string => (k === undefined ? '' : String(b[k] ?? ''));
  for (const family of api.families) {
    const rule = visibilityRules(family).find((r) => r.endpoint === endpoint.id);
    if (!rule) continue;
    return {
      family: family.key,
      tenant: family.scopeParam ? s(rule.scopeParam ?? family.scopeParam) : '',
      name: s(rule.nameParam ?? family.nameParam),
      present: rule.effect === 'appears',
    };
  }
  return null;
}

export interface HistoryViolation {
  /** `api.acknowledged-create-lost`, `api.deleted-resource-returned`. */
  name: string;
  /** Index of the plan step after which the lists were compared. */
  step: number;
  message: string;
}

interface Known {
  present: boolean;
  /** Step of the acknowledged call that set it (-1: seen in the first listing). */
  since: number;
}

/**
 * The acknowledged history of the resources a run touches: for each (family, tenant, name), whether
 * the last acknowledged call created or deleted it. Names the run never acknowledged a call for
 * count from the first listing on (the server may hold them already). A call whose answer was lost
 * (transport error) makes its resource unknown until the next acknowledged call on it.
 */
export class AckHistory {
  private readonly known = new Map<string, Known>();
  private readonly unknown = new Set<string>();

  constructor(private readonly api: ApiContract = API) {}

  static key(family: string, tenant: string, name: string): string {
    return `${family}\u0000${tenant}\u0000${name}`;
  }

  /** The resources a call acts on, seen at the start (before any call). */
  baseline(family: string, tenant: string, name: string, present: boolean): void {
    const k = AckHistory.key(family, tenant, name);
    if (!this.known.has(k)) this.known.set(k, { present, since: -1 });
  }

  acknowledged(call: ApiCall, step: number): void {
    const e = effectOf(call, this.api);
    if (!e) return;
    const k = AckHistory.key(e.family, e.tenant, e.name);
    this.known.set(k, { present: e.present, since: step });
    this.unknown.delete(k);
  }

  lost(call: ApiCall): void {
    const e = effectOf(call, this.api);
    if (e) this.unknown.add(AckHistory.key(e.family, e.tenant, e.name));
  }

  /** Compares one listing of (family, tenant) with the history; returns what disagrees. */
  compare(family: string, tenant: string, listed: ReadonlySet<string>, step: number): HistoryViolation[] {
    const out: HistoryViolation[] = [];
    for (const [k, v] of this.known) {
      const [f, t, name] = k.split('\u0000');
      if (f !== family || t !== tenant || this.unknown.has(k)) continue;
      const where = `${family} ${tenant ? `${tenant}/` : ''}${name}`;
      if (v.present && !listed.has(name)) {
        out.push({
          name: 'api.acknowledged-create-lost',
          step,
          message: `${where} was ${v.since < 0 ? 'listed at the start' : `created (acknowledged at step ${v.since})`} and never deleted, but the list does not show it`,
        });
      } else if (!v.present && listed.has(name)) {
        out.push({
          name: 'api.deleted-resource-returned',
          step,
          message: `${where} was ${v.since < 0 ? 'absent at the start' : `deleted (acknowledged at step ${v.since})`} and not created again, but the list shows it`,
        });
      }
    }
    return out;
  }

  /** Every (family, tenant) pair to list: the families the run touches, per tenant. */
  scopes(): [string, string][] {
    const seen = new Set<string>();
    const out: [string, string][] = [];
    for (const k of this.known.keys()) {
      const [f, t] = k.split('\u0000');
      const s = `${f}\u0000${t}`;
      if (!seen.has(s)) {
        seen.add(s);
        out.push([f, t]);
      }
    }
    return out.sort((a, b) => (a[0] + a[1] < b[0] + b[1] ? -1 : 1));
  }
}
