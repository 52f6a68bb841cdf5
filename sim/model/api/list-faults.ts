/**
 * Faults that can be put into the fast paths of list answers on purpose (maintained indexes, kept
 * matches, the indexed list query), to prove that the differential test of lists
 * (sim/admin-api/list-differential) finds each: with one on, it must report a difference from the
 * reference (sim/model/api/list-reference.ts); with all off, none.
 *
 * A registry of this process, switched on only by tests and the lists soak (`--fault`): nothing in
 * the CLI or the served API reaches it. They are the index-level faults; the HTTP layer's
 * deliberately broken behaviours, for the conformance suites, are the deviations (sim/faults, catalogue in sim/switches).
 */
const LIST_FAULTS = {
  'sort-direction-remembered':
    'the kept matches of a filtered query are keyed by how the index is walked, not by the direction asked: with a descending index, the direction of the first filtered query is served to later ones with the same filter',
  'update-keeps-old-place':
    'a record changed in place (modify, or replaced under its key) is not moved in the field indexes: it stays at the place of its old value',
  'delete-kept-in-filtered':
    'a delete does not drop the kept matches of filtered queries: the deleted record stays in filtered answers (unfiltered ones, read by position, lose it)',
  'total-before-filter': 'total_count of a filtered query of an indexed list counts the records before the filters',
  'page-before-sort': 'the page of a sorted query of an indexed list is cut from the base order, then sorted',
} as const;

export type ListFault = keyof typeof LIST_FAULTS;

export const LIST_FAULT_NAMES = Object.keys(LIST_FAULTS) as ListFault[];

const switchedOn = new Set<ListFault>();

/** Whether `fault` is on (one lookup in an empty set in normal use). */
export function listFaultOn(fault: ListFault): boolean {
  return switchedOn.size > 0 && switchedOn.has(fault);
}

/** Switches exactly `faults` on (an unknown name throws); returns what switches them off again. */
export function switchListFaults(faults: readonly string[]): () => void {
  for (const f of faults)
    if (!(f in LIST_FAULTS)) throw new Error(`unknown list fault ${JSON.stringify(f)}; known: ${LIST_FAULT_NAMES.join(', ')}`);
  const before = [...switchedOn];
  switchedOn.clear();
  for (const f of faults) switchedOn.add(f as ListFault);
  return () => {
    switchedOn.clear();
    for (const f of before) switchedOn.add(f);
  };
}
