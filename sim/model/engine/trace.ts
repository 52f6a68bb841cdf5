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

/** A string JSON.stringify writes as it is between quotes: no quote, backslash, control character or surrogate. */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON of a primitive as canonicalJson writes it; objects and arrays (and anything else) go to canonicalJson. */
function valueJson(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return NEEDS_ESCAPE.test(v) ? JSON.stringify(v) : `"${v}"`;
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return v === null ? 'null' : canonicalJson(v);
  }
}

/** How a kind's details are written: their keys as Object.keys gives them, sorted, and quoted with the colon. */
interface KeyPlan {
  readonly keys: readonly string[];
  readonly sorted: readonly string[];
  readonly quoted: readonly string[];
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The key plans of each kind's details, latest first: a kind is recorded from a few places, each
 * with its own keys in its own order (raft.role by an election, a step-down, a win), so a few plans
 * per kind are kept rather than one made again at every change of place.
 */
const keyPlans = new Map<string, KeyPlan[]>();
const PLANS_PER_KIND = 4;

function keyPlan(kind: string, keys: string[]): KeyPlan {
  let plans = keyPlans.get(kind);
  if (plans !== undefined) for (const plan of plans) if (sameKeys(plan.keys, keys)) return plan;
  const sorted = [...keys].sort();
  const made = { keys, sorted, quoted: sorted.map((k) => `${quotedKey(k)}:`) };
  if (plans === undefined) {
    if (keyPlans.size >= 4_096) return made;
    plans = [];
    keyPlans.set(kind, plans);
  }
  plans.unshift(made);
  if (plans.length > PLANS_PER_KIND) plans.pop();
  return made;
}

/**
 * canonicalJson(detail) of a trace entry of `kind`, written with the kind's key plan: the keys are
 * not sorted again, and strings without escapes and numbers are written without JSON.stringify. The
 * same text as canonicalJson (trace.test.ts compares them over random details and kinds).
 */
export function detailJson(kind: string, detail: unknown): string {
  if (detail === null || typeof detail !== 'object' || Array.isArray(detail)) return canonicalJson(detail);
  const proto = Object.getPrototypeOf(detail);
  if (proto !== Object.prototype && proto !== null) return canonicalJson(detail);
  const { sorted, quoted } = keyPlan(kind, Object.keys(detail));
  let out = '';
  for (let i = 0; i < sorted.length; i++) {
    const v = (detail as Record<string, unknown>)[sorted[i]];
    if (v === undefined) continue;
    out += out === '' ? quoted[i] + valueJson(v) : `,${quoted[i]}${valueJson(v)}`;
  }
  return `{${out}}`;
}

/**
 * The bytes an entry adds to the hashed stream: `at`, then `kind` as a JSON string, then the canonical
 * JSON of `detail`, then a newline. The stream decodes back into its entries (a number has no quote,
 * a JSON string ends at its first unescaped quote, JSON text has no raw newline), so two different
 * entry sequences never give the same bytes. The index is left out: it is the entry's position.
 */
export function entryBytes(at: number, kind: string, detail: unknown): string {
  return `${at}${quotedKey(kind)}${detailJson(kind, detail)}\n`;
}

/**
 * Entries hashed in one SHA-256 call: the chain links blocks, not entries (one native call per block).
 * Small on purpose: with 256 the pending string outlived young collections and its flattening cost
 * about as much as the per-entry calls it saved (measured in the 30,000-client workload).
 */
export const TRACE_BLOCK = 32;
const START = '0'.repeat(64);

/**
 * Append-only record of every state change, fingerprinted with SHA-256 chained over blocks of
 * TRACE_BLOCK entries: chain_b = sha256(chain_{b-1} + bytes of block b), starting from 64 zeros, and
 * the hash after n entries is sha256(chain + bytes of the entries since the last full block) (the
 * chain itself when there are none). Block edges fall at fixed entry counts, so reading the hash
 * never changes a later one; equal inputs give equal hashes on every machine. The state is plain
 * strings (no crypto object), so a model with its trace fits in a V8 startup snapshot.
 * Only the last `keep` entries are held in memory; the hash covers all of them.
 */
export class Trace {
  private chain = START;
  /** entryBytes of the entries since the last full block. */
  private pending = '';
  private count = 0;
  /** The last hash read, valid while `count` is still `readAt`. */
  private readHash = START;
  private readAt = 0;
  /** Ring buffers of the last `keep` entries (entry i lives at i % keep), made into objects only by tail(). */
  private readonly ats: number[] = [];
  private readonly kinds: string[] = [];
  private readonly details: unknown[] = [];

  constructor(
    private readonly keep = 10_000,
    /** Entries per hashed block: TRACE_BLOCK in every run (other sizes give other hashes; tests cross block edges with small ones). */
    private readonly block = TRACE_BLOCK,
  ) {
    if (!(keep >= 1)) throw new Error(`trace must keep at least one entry, got ${keep}`);
    if (!(Number.isInteger(block) && block >= 1)) throw new Error(`trace blocks must hold at least one entry, got ${block}`);
  }

  append(at: number, kind: string, detail: unknown): void {
    // The bytes are taken now: a detail changed after it was recorded must not change the hash.
    this.pending += entryBytes(at, kind, detail);
    const slot = this.count % this.keep;
    this.ats[slot] = at;
    this.kinds[slot] = kind;
    this.details[slot] = detail;
    if (++this.count % this.block === 0) {
      this.chain = hash('sha256', this.chain + this.pending, 'hex');
      this.pending = '';
    }
  }

  /** The hash over every entry appended so far. */
  get hash(): string {
    if (this.readAt !== this.count) {
      this.readHash = this.pending === '' ? this.chain : hash('sha256', this.chain + this.pending, 'hex');
      this.readAt = this.count;
    }
    return this.readHash;
  }

  get length(): number {
    return this.count;
  }

  /** The most recent entries still held in memory, oldest first. */
  tail(n = 100): TraceEntry[] {
    const held = Math.min(this.count, this.keep);
    const take = Math.max(0, Math.min(n, held));
    const out: TraceEntry[] = [];
    for (let i = this.count - take; i < this.count; i++) {
      const slot = i % this.keep;
      out.push({ index: i, at: this.ats[slot], kind: this.kinds[slot], detail: this.details[slot] });
    }
    return out;
  }
}
