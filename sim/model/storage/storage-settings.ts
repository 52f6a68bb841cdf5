/**
 * Tuning of the storage engine's replication, in the names of the real server's (Kafka-style)
 * settings. Held at `cluster.storage.settings`; read at every use, so a test may change it at any
 * time (for example a shorter lag time to see the ISR shrink sooner).
 */
export interface StorageSettings {
  /** A follower not caught up to its leader's LEO for longer than this leaves the ISR. */
  replica_lag_time_max_ms: number;
  /** Each fetcher (follower node → leader node) sends one fetch request this often. */
  replica_fetch_interval_ms: number;
  /** Bytes of records one fetch response carries at most (at least one record always goes). */
  replica_fetch_max_bytes: number;
  /**
   * A fetch request names only the segments whose state changed since the previous one (Kafka's
   * incremental fetch session). A lost request repairs itself (the leader sends again what it thinks
   * is missing, and the follower reports again when it sees records it holds); as a safety net,
   * every this-many requests name all segments.
   */
  replica_fetch_full_every: number;
  /** How often the leaders look for followers that fell out of sync. */
  isr_check_interval_ms: number;
  /** How often the controller (the meta group's leader) looks for nodes that died or became unreachable. */
  controller_check_interval_ms: number;
  /** Shard deletion: PreDelete lasts this long, then Deleting lasts this long, then the shard is gone. */
  delete_step_ms: number;
}

export const DEFAULT_STORAGE_SETTINGS: Readonly<StorageSettings> = Object.freeze({
  replica_lag_time_max_ms: 10_000,
  replica_fetch_interval_ms: 500,
  replica_fetch_max_bytes: 1_048_576,
  replica_fetch_full_every: 40,
  isr_check_interval_ms: 1_000,
  controller_check_interval_ms: 250,
  delete_step_ms: 1_000,
});

/**
 * Deliberate deviations from correct replication, for tests that prove the invariant checkers catch
 * them. All off by default; `cluster.storage.bugs = { uncleanElection: true }` switches one on.
 */
export interface StorageBugs {
  /** The leader takes the LEO of the MOST advanced ISR member as high watermark, not the least. */
  hwPastIsrMember?: boolean;
  /** With no live ISR member, an out-of-sync replica becomes leader (Kafka's unclean.leader.election). */
  uncleanElection?: boolean;
}
