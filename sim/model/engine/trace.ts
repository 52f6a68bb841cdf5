import { hash } from 'node:crypto';

/** One state change of a run, as recorded. */
export interface TraceEntry {
  readonly index: number;
  readonly at: number;
  readonly kind: string;
  readonly detail: unknown;
}

/** JSON strings of object keys: details use a few dozen key names, quoted once each (bounded). */
const quotedKeys = new Map<string, string>();
function quotedKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (quotedKeys.size < 4_096) quotedKeys.set(k, q);
  }
  return q;
}

/** A plain object (no toJSON of a class) whose values are all primitives: strings, numbers, booleans, null or undefined. */
function isFlatPlain(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k of keys) {
    const v = value[k];
    const t = typeof v;
    if (t !== 'string' && t !== 'number' && t !== 'boolean' && t !== 'undefined' && v !== null) return false;
  }
  return true;
}

/**
 * Serialises with sorted object keys, so the hash does not depend on property insertion order. Keys
 * already in order (the usual case) are not sorted again; the output is the JSON of the value with
 * its keys sorted, `undefined` properties left out and `undefined` array items as null.
 */
export function canonicalJson(value: unknown): string {
  // Fast paths with JSON.stringify's output: finite numbers print as String does, others as null.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(value === undefined ? null : value);
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      if (i in value) out += canonicalJson(value[i]); // a hole renders as nothing, as join does
    }
    return `${out}]`;
  }
  const keys = Object.keys(value as Record<string, unknown>);
  let sorted = true;
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1] > keys[i]) {
      keys.sort();
      sorted = false;
      break;
    }
  }
  // Most trace details are flat plain objects with keys in order: JSON.stringify writes exactly these
  // bytes (keys in Object.keys order, undefined left out, non-finite numbers as null), natively.
  if (sorted && isFlatPlain(value as Record<string, unknown>, keys)) return JSON.stringify(value);
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += `${quotedKey(k)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

/**
 * Append-only record of every state change with a rolling SHA-256: hash_n = sha256(hash_{n-1} | entry_n).
 * The final hash is the fingerprint of a run; equal inputs must give equal hashes on every machine.
 * Only the last `keep` entries are held in memory; the hash covers all of them.
 */
export class Trace {
  private rolling = '0'.repeat(64);
  private count = 0;
  /** Ring buffer of the last `keep` entries: entry i lives at i % keep. */
  private readonly recent: TraceEntry[] = [];

  constructor(private readonly keep = 10_000) {
    if (!(keep >= 1)) throw new Error(`trace must keep at least one entry, got ${keep}`);
  }

  append(at: number, kind: string, detail: unknown): TraceEntry {
    const entry: TraceEntry = { index: this.count++, at, kind, detail };
    // One-shot hash of the same bytes as update(rolling), update(header), update(json): a Hash object per entry cost more than the hashing.
    this.rolling = hash('sha256', `${this.rolling}|${entry.index}|${at}|${kind}|${canonicalJson(detail)}`, 'hex');
    this.recent[entry.index % this.keep] = entry;
    return entry;
  }

  /** The rolling hash over every entry appended so far. */
  get hash(): string {
    return this.rolling;
  }

  get length(): number {
    return this.count;
  }

  /** The most recent entries still held in memory, oldest first. */
  tail(n = 100): TraceEntry[] {
    const held = Math.min(this.count, this.keep);
    const take = Math.max(0, Math.min(n, held));
    const out: TraceEntry[] = [];
    for (let i = this.count - take; i < this.count; i++) out.push(this.recent[i % this.keep]);
    return out;
  }
}
