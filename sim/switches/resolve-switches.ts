import type { Deviation } from '../admin-api/hooks/deviation.ts';
import { deviationById, DEVIATION_IDS } from './catalogue.ts';

/** Unknown deviation ids: a usage mistake, reported with the list of valid ones. */
export class UnknownDeviationError extends Error {
  constructor(readonly unknown: readonly string[]) {
    super(
      `unknown deviation${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => JSON.stringify(u)).join(', ')}; known: ${DEVIATION_IDS.join(', ')}`,
    );
    this.name = 'UnknownDeviationError';
  }
}

/**
 * A switch to turn on: the id of a catalogued one, or a switch defined where it is used (a test's
 * throwaway fault or dialect switch, CONTRIBUTING.md), which no command line can name.
 */
export type SwitchRef = string | Deviation;

/**
 * The deviations of these ids (switches given as such pass as they are); throws UnknownDeviationError
 * naming every unknown id. The admin app takes switches resolved: its callers (serve, the library,
 * the sim target of the suites, tests) resolve ids here, so the app never reaches the catalogue,
 * whose faults and dialects are built on the app's request and hook types.
 */
export function resolveDeviations(refs: readonly SwitchRef[]): Deviation[] {
  const unknown = refs.filter((r): r is string => typeof r === 'string' && !deviationById(r));
  if (unknown.length > 0) throw new UnknownDeviationError(unknown);
  return [...new Set(refs)].map((r) => (typeof r === 'string' ? deviationById(r)! : r));
}
