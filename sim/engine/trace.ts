import { createHash } from 'node:crypto';

/** One state change of a run, as recorded. */
export interface TraceEntry {
  readonly index: number;
  readonly at: number;
  readonly kind: string;
  readonly detail: unknown;
}

/** Serialises with sorted object keys, so the hash does not depend on property insertion order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(value === undefined ? null : value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value as Record<string, unknown>).sort();
  const parts: string[] = [];
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * Append-only record of every state change with a rolling SHA-256: hash_n = sha256(hash_{n-1} | entry_n).
 * The final hash is the fingerprint of a run; equal inputs must give equal hashes on every machine.
 * Only the last `keep` entries are held in memory; the hash covers all of them.
 */
export class Trace {
  private rolling = '0'.repeat(64);
  private count = 0;
  private readonly recent: TraceEntry[] = [];

  constructor(private readonly keep = 10_000) {}

  append(at: number, kind: string, detail: unknown): TraceEntry {
    const entry: TraceEntry = { index: this.count++, at, kind, detail };
    this.rolling = createHash('sha256')
      .update(this.rolling)
      .update(`|${entry.index}|${at}|${kind}|`)
      .update(canonicalJson(detail))
      .digest('hex');
    this.recent.push(entry);
    if (this.recent.length > this.keep) this.recent.splice(0, this.recent.length - this.keep);
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
    return this.recent.slice(-n);
  }
}
