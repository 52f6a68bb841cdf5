import { createHash } from 'node:crypto';

/** One state change of a run, as recorded. */
export interface TraceEntry {
  readonly index: number;
  readonly at: number;
  readonly kind: string;
  readonly detail: unknown;
}

/** JSON-quoted object keys; the trace uses few distinct keys, so quoting each once saves work per entry. */
const quotedKeys = new Map<string, string>();
function quoteKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (quotedKeys.size < 10_000) quotedKeys.set(k, q);
  }
  return q;
}

/**
 * Serialises with sorted object keys, so the hash does not depend on property insertion order.
 * (String building without intermediate arrays: it runs for every trace entry of every run.)
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(value === undefined ? null : value);
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const keys = Object.keys(value as Record<string, unknown>);
  if (keys.length > 1) keys.sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    out += (first ? '' : ',') + quoteKey(k) + ':' + canonicalJson(v);
    first = false;
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
    // One update of the same bytes as hash | "|index|at|kind|" | canonical detail (fewer native calls).
    this.rolling = createHash('sha256').update(`${this.rolling}|${entry.index}|${at}|${kind}|${canonicalJson(detail)}`).digest('hex');
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
