import type { ListSpec, ParamSpec } from '../../../contract/core/types.ts';
import { IndexedList } from './indexed-list.ts';
import { indexedListPage } from './indexed-list-query.ts';
import { referenceListPage, type Page } from './list-reference.ts';

export type { Page } from './list-reference.ts';

/**
 * The page a list query asks for, of the records a list handler returned: an IndexedList is paged
 * from its indexes (indexed-list-query.ts, the fast path) when the list's record fields are known
 * and it has an index for the order asked; anything else is answered by the reference
 * (list-reference.ts), over the records in base order.
 */
export function applyListQuery<T extends object, R = unknown>(
  records: readonly T[] | IndexedList<R, T>,
  params: Record<string, unknown>,
  namedParams: readonly ParamSpec[],
  spec: ListSpec,
  recordFields?: readonly string[],
): Page<T> {
  if (!(records instanceof IndexedList)) return referenceListPage(records, params, namedParams, spec, recordFields);
  const fast = recordFields ? indexedListPage(records, params, namedParams, spec, recordFields) : undefined;
  return fast ?? referenceListPage(records.toArray(), params, namedParams, spec, recordFields);
}
