import type { ResourceFamilyContract, ShownParam } from '../../../contract/core/types.ts';
import { QUOTA_DEFAULTS } from './families.ts';

/**
 * What a list record must show of the parameters an instance was created (or updated) with. An
 * optional parameter left out shows as OMITTED: the record may carry "", null or nothing there.
 */

export const OMITTED = '<omitted>';

export type Shown = Readonly<Record<string, unknown>>;

/** The spec's defaults with the given quota fields on top (Resources: Tenant). */
export function quotaWith(given: unknown, base: Readonly<Record<string, unknown>> = QUOTA_DEFAULTS): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  if (given !== null && typeof given === 'object')
    for (const [k, v] of Object.entries(given)) if (k in QUOTA_DEFAULTS && v !== undefined && v !== null) out[k] = v;
  return out;
}

/** What the list must show for a create with these (resolved, valid) parameters. */
/** The create parameters the family's list shows (none without a listing). */
const shownParams = (family: ResourceFamilyContract): readonly ShownParam[] => family.listing?.shows ?? [];

export function shownOf(family: ResourceFamilyContract, params: Record<string, unknown>): Shown {
  const out: Record<string, unknown> = {};
  for (const f of shownParams(family)) {
    const v = params[f.param];
    if (f.compare === 'quota') out[f.param] = quotaWith(v);
    else out[f.param] = v === undefined || v === null || v === '' ? OMITTED : v;
  }
  return out;
}

export function shownKey(s: Shown): string {
  return JSON.stringify(
    Object.keys(s)
      .sort()
      .map((k) => [k, s[k]]),
  );
}

function emptyish(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/** The fields of `record` that differ from what `expected` says it must show (empty when it matches). */
export function mismatches(family: ResourceFamilyContract, record: Record<string, unknown>, expected: Shown): string[] {
  const problems: string[] = [];
  for (const f of shownParams(family)) {
    const want = expected[f.param];
    const field = f.field ?? f.param;
    const got = record[field];
    if (want === OMITTED) {
      if (!emptyish(got)) problems.push(`${field} is ${JSON.stringify(got)} though it was never given`);
    } else if (f.compare === 'quota') {
      const q = got as Record<string, unknown> | undefined;
      if (q === null || typeof q !== 'object')
        problems.push(`${field} is ${JSON.stringify(got)}, expected the quota ${JSON.stringify(want)}`);
      else
        for (const [k, v] of Object.entries(want as Record<string, unknown>))
          if (q[k] !== v) problems.push(`${field}.${k} is ${JSON.stringify(q[k])}, expected ${JSON.stringify(v)}`);
    } else if (f.compare === 'lowercase') {
      if (typeof got !== 'string' || got.toLowerCase() !== String(want).toLowerCase())
        problems.push(`${field} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
    } else if (got !== want) {
      problems.push(`${field} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
    }
  }
  return problems;
}

/** What a record shows, in the form of `shownOf` (to follow the target after a deviation). */
export function shownFromRecord(family: ResourceFamilyContract, record: Record<string, unknown>): Shown {
  const out: Record<string, unknown> = {};
  for (const f of shownParams(family)) {
    const v = record[f.field ?? f.param];
    out[f.param] = f.compare !== 'quota' && emptyish(v) ? OMITTED : v;
  }
  return out;
}
