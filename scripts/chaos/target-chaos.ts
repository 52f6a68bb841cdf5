import { generatePlan, type ApiCall } from '../../sim/runs/chaos/chaos-plan.ts';
import type { Target, TargetResponse } from '../../suites/targets/target.ts';
import { AckHistory, effectOf, historyList, type HistoryViolation } from './api-history.ts';

export interface TargetChaosOptions {
  seed: string;
  steps: number;
  /** Compare every list with the history after this many steps (and at the end). */
  checkEvery?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface TargetChaosResult {
  target: string;
  seed: string;
  steps: number;
  calls: { ok: number; refused: number; transport_errors: number };
  /** List comparisons made (one per family and tenant per check point). */
  list_checks: number;
  violations: HistoryViolation[];
}

/** Rows of a list answer in envelope form A (`data.data`) or B (`data`). */
function rowsOf(res: TargetResponse): Record<string, unknown>[] | null {
  const data = (res.json as { data?: unknown } | undefined)?.data as { data?: unknown } | unknown[] | undefined;
  if (Array.isArray(data)) return data as Record<string, unknown>[];
  if (data && Array.isArray((data as { data?: unknown }).data)) return (data as { data: Record<string, unknown>[] }).data;
  return null;
}

const isOk = (res: TargetResponse): boolean => res.status === 200 && (res.json as { code?: number } | undefined)?.code === 0;

/**
 * The API-operation part of a seeded chaos plan against any server over HTTP: no fault injection
 * (the server is not ours to break), but the same seeded creates, deletes, sends and reads, and
 * API-level invariants checked against the acknowledged history at regular points: no acknowledged
 * create lost, a deleted resource stays deleted, every list agrees with what was acknowledged.
 */
export async function runTargetChaos(target: Target, o: TargetChaosOptions): Promise<TargetChaosResult> {
  const plan = generatePlan({ seed: o.seed, steps: o.steps, nodes: 3, faults: [], bug: null });
  const calls = plan.flatMap((s) => ('api' in s ? [s.api] : []));
  const history = new AckHistory();
  const counts = { ok: 0, refused: 0, transport_errors: 0 };
  const violations: HistoryViolation[] = [];
  const reported = new Set<string>();
  let listChecks = 0;

  const list = async (key: string, tenant: string): Promise<Set<string> | null> => {
    const { nameField, ...request } = historyList(key, tenant);
    const res = await target.request(request);
    const rows = rowsOf(res);
    if (!isOk(res) || !rows) return null;
    return new Set(rows.map((r) => String(r[nameField])));
  };

  // Baseline: what the server holds of the names the plan touches, before the first call.
  const touched = new Map<string, { family: string; tenant: string; names: Set<string> }>();
  for (const call of calls) {
    const e = effectOf(call);
    if (!e) continue;
    const k = `${e.family}\u0000${e.tenant}`;
    if (!touched.has(k)) touched.set(k, { family: e.family, tenant: e.tenant, names: new Set() });
    touched.get(k)!.names.add(e.name);
  }
  for (const { family, tenant, names } of touched.values()) {
    const listed = await list(family, tenant);
    if (!listed) continue; // the tenant may not exist yet: its resources start absent
    for (const n of names) history.baseline(family, tenant, n, listed.has(n));
  }
  for (const { family, tenant, names } of touched.values()) for (const n of names) history.baseline(family, tenant, n, false);

  const checkLists = async (step: number): Promise<void> => {
    for (const [family, tenant] of history.scopes()) {
      const listed = await list(family, tenant);
      if (!listed) continue;
      listChecks++;
      for (const v of history.compare(family, tenant, listed, step)) {
        // One report per resource and kind: the same lost create would show at every later check.
        const id = `${v.name} ${v.message.split(' was ')[0]}`;
        if (reported.has(id)) continue;
        reported.add(id);
        violations.push(v);
      }
    }
  };

  const every = o.checkEvery ?? 25;
  for (let i = 0; i < calls.length; i++) {
    const call: ApiCall = calls[i];
    let res: TargetResponse;
    try {
      const [path, query] = call.path.split('?');
      res = await target.request({ method: call.method, path, ...(query ? { query } : {}), ...(call.body ? { body: call.body } : {}) });
    } catch {
      counts.transport_errors++;
      history.lost(call);
      continue;
    }
    if (isOk(res)) {
      counts.ok++;
      history.acknowledged(call, i);
    } else counts.refused++;
    if ((i + 1) % every === 0) await checkLists(i);
    o.onProgress?.(i + 1, calls.length);
  }
  await checkLists(calls.length - 1);
  return { target: target.name, seed: o.seed, steps: calls.length, calls: counts, list_checks: listChecks, violations };
}
