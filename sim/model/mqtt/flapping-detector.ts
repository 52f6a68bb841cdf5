import type { IndexedList } from '../api/indexed-list.ts';
import { RecordIndex, type IndexEntry } from '../api/record-index.ts';
import { localTimeString, unixSeconds } from '../api/time-format.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';
import { clientKey } from './mqtt-model.ts';

/** The flapping list's record (reference notes §7). */
export interface FlappingRecord {
  tenant: string;
  client_id: string;
  /** Connection attempts counted in the window when the ban was decided, the refused one included. */
  before_last_window_connections: number;
  /** Unix seconds of the first attempt in that window. */
  first_request_time: number;
}

/** The ban log's record (reference notes §7): times as local strings. */
export interface BanLogRecord {
  tenant: string;
  ban_type: 'client_id';
  resource_name: string;
  ban_source: 'flapping_detect';
  end_time: string;
  create_time: string;
}

/** Ban log entries kept; the oldest go first. */
const MAX_BAN_LOG = 10_000;

export type FlappingVerdict = { banned: false } | { banned: true; untilMs: number };

/**
 * Connection flapping detection (spec: States, "Connection flapping ban"). While
 * `MqttFlappingDetect.enable`, each connect attempt of a (tenant, client) is counted in a sliding
 * window of `window_time` seconds. "More than max_client_connections within window_time" is read
 * literally: the attempt that makes the count in the window exceed the maximum is refused and bans
 * the client for `ban_time` seconds; so `max` attempts within a window are admitted and the next one
 * is banned. The ban is a ClientId blacklist entry (source `flapping`, expires by itself), a ban-log
 * record and a flapping record that lasts as long as the ban.
 */
export class FlappingDetector {
  private readonly windows = new Map<string, number[]>();
  private readonly bannedUntil = new Map<string, number>();
  private readonly records = new RecordIndex<FlappingRecord>({ viewsOfRecordsOnly: true });
  /** The ban log under increasing keys (insertion order is log order); the oldest go first. */
  private readonly banLog = new RecordIndex<BanLogRecord>({ viewsOfRecordsOnly: true });
  private banLogSeq = 0;
  private bans = 0;

  constructor(private readonly deps: Pick<MqttBrokerDeps, 'engine' | 'config' | 'blacklist'>) {}

  /** Drops windows with no attempt in the last window, so memory follows active clients only. */
  start(): void {
    this.deps.engine.every(10_000, 'mqtt.flapping.sweep', () => this.sweep());
  }

  /** Whether a flapping ban of this client is in force. */
  isBanned(tenant: string, clientId: string): boolean {
    const until = this.bannedUntil.get(clientKey(tenant, clientId));
    return until !== undefined && until > this.deps.engine.now();
  }

  /** Counts one connect attempt (one that passed the blacklist) and decides whether it bans the client. */
  onConnectAttempt(tenant: string, clientId: string): FlappingVerdict {
    const cfg = this.deps.config.current().MqttFlappingDetect;
    if (!cfg.enable) return { banned: false };
    const now = this.deps.engine.now();
    const key = clientKey(tenant, clientId);
    const windowMs = cfg.window_time * 1000;
    // Filtered in place: one attempt per connect of every client, so no new array per attempt.
    const attempts = this.windows.get(key) ?? [];
    let kept = 0;
    for (const t of attempts) if (now - t < windowMs) attempts[kept++] = t;
    attempts.length = kept;
    attempts.push(now);
    if (attempts.length <= cfg.max_client_connections) {
      this.windows.set(key, attempts);
      return { banned: false };
    }
    this.windows.delete(key);
    this.bans++;
    const untilMs = now + cfg.ban_time * 1000;
    this.bannedUntil.set(key, untilMs);
    const record: FlappingRecord = {
      tenant,
      client_id: clientId,
      before_last_window_connections: attempts.length,
      first_request_time: unixSeconds(attempts[0]),
    };
    this.records.set(key, record);
    this.banLog.set(String(this.banLogSeq++), {
      tenant,
      ban_type: 'client_id',
      resource_name: clientId,
      ban_source: 'flapping_detect',
      end_time: localTimeString(untilMs),
      create_time: localTimeString(now),
    });
    while (this.banLog.size > MAX_BAN_LOG) this.banLog.delete(this.banLog.keys().next().value as string);
    this.deps.blacklist.add({
      tenant,
      name: `flapping-ban-${tenant}-${clientId}`,
      blacklist_type: 'ClientId',
      resource_name: clientId,
      endTimeMs: untilMs,
      desc: 'Ban due to connection jitter',
      source: 'flapping',
    });
    this.deps.engine.record('mqtt.flapping.ban', { tenant, clientId, attempts: attempts.length, untilMs });
    this.deps.engine.after(cfg.ban_time * 1000, 'mqtt.flapping.unban', () => {
      if ((this.bannedUntil.get(key) ?? 0) > this.deps.engine.now()) return; // banned again since
      this.bannedUntil.delete(key);
      this.records.delete(key);
      this.deps.engine.record('mqtt.flapping.unban', { tenant, clientId });
    });
    return { banned: true, untilMs };
  }

  /** Clients whose flapping ban is in force, in ban order. */
  flappingRecords(): FlappingRecord[] {
    return this.records.values().map((r) => ({ ...r }));
  }

  /** The flapping list (each record as a copy), served from the sorted indexes. */
  flappingListing(): IndexedList<IndexEntry<FlappingRecord>, FlappingRecord> {
    return this.records.listing((r) => ({ ...r }));
  }

  /** The ban log (each record as a copy), served from the sorted indexes. */
  banLogListing(): IndexedList<IndexEntry<BanLogRecord>, BanLogRecord> {
    return this.banLog.listing((r) => ({ ...r }));
  }

  /** Flapping bans since start (the ban log keeps only the latest MAX_BAN_LOG). */
  get banCount(): number {
    return this.bans;
  }

  banLogRecords(): BanLogRecord[] {
    return this.banLog.values().map((r) => ({ ...r }));
  }

  private sweep(): void {
    if (this.windows.size === 0) return;
    const windowMs = this.deps.config.current().MqttFlappingDetect.window_time * 1000;
    const now = this.deps.engine.now();
    // A Map may lose entries while it is iterated (no copy of a window per client every sweep).
    for (const [key, attempts] of this.windows) {
      if (attempts.length === 0 || now - attempts[attempts.length - 1] >= windowMs) this.windows.delete(key);
    }
  }
}
