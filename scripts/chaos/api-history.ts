import type { ApiCall } from '../../sim/chaos/chaos-plan.ts';

/** The resource families the chaos plan's API operations create and delete, and how to list them. */
export const FAMILIES = {
  tenant: { list: (_t: string) => '/api/cluster/tenant/list?limit=10000', field: 'tenant_name', scoped: false },
  user: { list: (t: string) => `/api/cluster/user/list?tenant=${encodeURIComponent(t)}&limit=10000`, field: 'username', scoped: true },
  acl: { list: (t: string) => `/api/cluster/acl/list?tenant=${encodeURIComponent(t)}&limit=10000`, field: 'name', scoped: true },
  topic: { list: (t: string) => `/api/cluster/topic/list?tenant=${encodeURIComponent(t)}&limit=10000`, field: 'topic_name', scoped: true },
  connector: {
    list: (t: string) => `/api/cluster/connector/list?tenant=${encodeURIComponent(t)}&limit=10000`,
    field: 'connector_name',
    scoped: true,
  },
} as const;
export type Family = keyof typeof FAMILIES;

/** What one call does to the history when it is acknowledged (code 0): a resource exists, or is gone. */
export function effectOf(call: ApiCall): { family: Family; tenant: string; name: string; present: boolean } | null {
  const b = call.body ?? {};
  const s = (k: string): string => String(b[k] ?? '');
  switch (call.path) {
    case '/api/cluster/tenant/create':
    case '/api/cluster/tenant/delete':
      return { family: 'tenant', tenant: '', name: s('tenant_name'), present: call.path.endsWith('create') };
    case '/api/cluster/user/create':
    case '/api/cluster/user/delete':
      return { family: 'user', tenant: s('tenant'), name: s('username'), present: call.path.endsWith('create') };
    case '/api/cluster/acl/create':
    case '/api/cluster/acl/delete':
      return { family: 'acl', tenant: s('tenant'), name: s('name'), present: call.path.endsWith('create') };
    case '/api/cluster/topic/create':
    case '/api/cluster/topic/delete':
      return { family: 'topic', tenant: s('tenant'), name: s('topic_name'), present: call.path.endsWith('create') };
    case '/api/mqtt/message/send': // publishing creates the topic when it is missing
      return { family: 'topic', tenant: s('tenant'), name: s('topic'), present: true };
    case '/api/cluster/connector/create':
    case '/api/cluster/connector/delete':
      return { family: 'connector', tenant: s('tenant'), name: s('connector_name'), present: call.path.endsWith('create') };
    default:
      return null;
  }
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

  static key(family: Family, tenant: string, name: string): string {
    return `${family}\u0000${tenant}\u0000${name}`;
  }

  /** The resources a call acts on, seen at the start (before any call). */
  baseline(family: Family, tenant: string, name: string, present: boolean): void {
    const k = AckHistory.key(family, tenant, name);
    if (!this.known.has(k)) this.known.set(k, { present, since: -1 });
  }

  acknowledged(call: ApiCall, step: number): void {
    const e = effectOf(call);
    if (!e) return;
    const k = AckHistory.key(e.family, e.tenant, e.name);
    this.known.set(k, { present: e.present, since: step });
    this.unknown.delete(k);
  }

  lost(call: ApiCall): void {
    const e = effectOf(call);
    if (e) this.unknown.add(AckHistory.key(e.family, e.tenant, e.name));
  }

  /** Compares one listing of (family, tenant) with the history; returns what disagrees. */
  compare(family: Family, tenant: string, listed: ReadonlySet<string>, step: number): HistoryViolation[] {
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
  scopes(): [Family, string][] {
    const seen = new Set<string>();
    const out: [Family, string][] = [];
    for (const k of this.known.keys()) {
      const [f, t] = k.split('\u0000');
      const s = `${f}\u0000${t}`;
      if (!seen.has(s)) {
        seen.add(s);
        out.push([f as Family, t]);
      }
    }
    return out.sort((a, b) => (a[0] + a[1] < b[0] + b[1] ? -1 : 1));
  }
}
