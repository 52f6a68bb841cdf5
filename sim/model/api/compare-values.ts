/**
 * How list queries compare and match field values (the spec's sort and filter rules as the real
 * server applies them): shared by the array path and the indexes so both give the same order.
 */

/** A field value as text for filters: objects as JSON, absent as undefined. */
export function valueText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** Ascending order of two field values: absent first, numbers by value, the rest by their text. */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const sa = typeof a === 'object' ? JSON.stringify(a) : String(a);
  const sb = typeof b === 'object' ? JSON.stringify(b) : String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}
