import type { ClientState, LiveConnection } from './mqtt-model.ts';

/** A connection waiting for its next heartbeat check. */
export interface HeartbeatEntry {
  readonly client: ClientState;
  readonly connection: LiveConnection;
  /** The connection's keep-alive in ms (kept here: reading it from the client costs two more scattered reads per entry). */
  readonly periodMs: number;
}

/** Whether an entry's connection has closed since it was added: the obvious test, which `connection.closed` answers without reading the client. */
export function heartbeatEntryStale(entry: HeartbeatEntry): boolean {
  return entry.client.connection !== entry.connection;
}

/**
 * Connections bucketed by the housekeeping tick at which their next keep-alive heartbeat falls due,
 * so a tick looks only at the connections due then instead of every client. A tick index `k` is the
 * k-th run of a periodic job started at `startMs` (it runs at startMs + k × periodMs). An entry whose
 * connection has since closed is stale and is dropped when its bucket is taken.
 */
export class HeartbeatWheel {
  private readonly buckets = new Map<number, HeartbeatEntry[]>();
  private startMs = 0;

  constructor(private readonly periodMs: number) {}

  /** Sets the time the periodic job was scheduled from (its first tick is startMs + periodMs). */
  start(startMs: number): void {
    this.startMs = startMs;
  }

  /** Index of the tick running at `nowMs`. */
  tickAt(nowMs: number): number {
    return Math.round((nowMs - this.startMs) / this.periodMs);
  }

  /** Puts the entry in the first tick at or after `dueMs`. */
  add(entry: HeartbeatEntry, dueMs: number): void {
    const k = Math.max(1, Math.ceil((dueMs - this.startMs) / this.periodMs));
    let bucket = this.buckets.get(k);
    if (!bucket) this.buckets.set(k, (bucket = []));
    bucket.push(entry);
  }

  /** Calls `visit` with every entry waiting, in no particular order (for tests). */
  forEachEntry(visit: (entry: HeartbeatEntry) => void): void {
    for (const bucket of this.buckets.values()) for (const entry of bucket) visit(entry);
  }

  /** Removes and returns the entries of tick `k`. */
  take(k: number): HeartbeatEntry[] {
    const bucket = this.buckets.get(k);
    if (!bucket) return [];
    this.buckets.delete(k);
    return bucket;
  }
}
