/** Deepest nesting a request body may have (parse-request.ts refuses deeper ones). */
const MAX_DEPTH = 64;
const NOT_PLAIN: unique symbol = Symbol('not plain JSON data');

/**
 * A fresh copy of `value` equal to `JSON.parse(JSON.stringify(value))` (same values, keys in the same
 * order, -0 as 0, non-finite numbers and array holes as null, undefined properties left out), for
 * plain JSON data: strings, numbers, booleans, null, arrays and plain objects at most 64 deep.
 * Undefined for anything else (a toJSON, a class instance, a function, a `__proto__` key, deeper
 * nesting): the caller then parses the text. In-process callers hand this along with a request body
 * they wrote with JSON.stringify, so the app need not parse it again (json-copy.test.ts compares it
 * with the round trip).
 */
export function jsonCopy(value: unknown): unknown {
  const out = copy(value, 0);
  return out === NOT_PLAIN ? undefined : out;
}

function copy(v: unknown, depth: number): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      // JSON writes -0 as 0 and non-finite numbers as null.
      return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
    case 'object':
      if (v === null) return null;
      if (depth >= MAX_DEPTH) return NOT_PLAIN;
      return Array.isArray(v) ? copyArray(v, depth) : copyObject(v as Record<string, unknown>, depth);
    default:
      return NOT_PLAIN;
  }
}

function copyArray(v: unknown[], depth: number): unknown {
  if (Object.getPrototypeOf(v) !== Array.prototype) return NOT_PLAIN;
  const out: unknown[] = [];
  for (let i = 0; i < v.length; i++) {
    const item = v[i];
    const c = item === undefined ? null : copy(item, depth + 1);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    out.push(c);
  }
  return out;
}

function copyObject(v: Record<string, unknown>, depth: number): unknown {
  const proto = Object.getPrototypeOf(v);
  if ((proto !== Object.prototype && proto !== null) || typeof v.toJSON === 'function') return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const item = v[k];
    if (item === undefined) continue;
    // Assigning `__proto__` would set the copy's prototype, where JSON.parse makes an own property.
    if (k === '__proto__') return NOT_PLAIN;
    const c = copy(item, depth + 1);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    out[k] = c;
  }
  return out;
}
