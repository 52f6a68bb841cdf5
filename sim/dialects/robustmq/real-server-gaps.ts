/**
 * Behaviours of the real server (reference notes §11) that have no `--deviation` switch, and why:
 * the simulator already behaves that way, the behaviour cannot be reproduced faithfully through the
 * four hook points (it lives in the model's schedule or stores), or it is not observable through the
 * HTTP API at all. Listed so the proof of issue 11 can account for every §11 item.
 */
import type { SpecStanding } from '../../admin-api/hooks/deviation.ts';

export interface RealServerGap {
  /** The id a switch would have. */
  readonly id: string;
  readonly spec: SpecStanding;
  readonly notes: string;
  readonly why: 'already-simulated' | 'not-reproducible-through-hooks' | 'not-observable';
  readonly reason: string;
}

export const REAL_SERVER_GAPS: readonly RealServerGap[] = [
  {
    id: 'monitor-no-retention',
    spec: 'breaks',
    notes: 'notes §11.23, §8.5',
    why: 'not-reproducible-through-hooks',
    reason:
      'the monitor keeps each series in a fixed one-hour ring (60 points) and drops older points when it samples; the hooks see only the answers, so points older than an hour no longer exist to be returned. Reproducing needs a model option for an unbounded store',
  },
  {
    id: 'monitor-30s-sampling',
    spec: 'allows',
    notes: 'notes §11.23, §8.5',
    why: 'not-reproducible-through-hooks',
    reason:
      "sampling is the model's 60 s schedule (and counters are counts per interval, where the real server stores per-second rates over 30 s); no hook runs on the schedule, and an extra sample from a request hook would depend on when requests arrive",
  },
  {
    id: 'subscribe-detail-keyed-by-topic',
    spec: 'breaks',
    notes: 'notes §11.20, §4.9',
    why: 'already-simulated',
    reason:
      'the simulator already keys push_subscribe and push_thread by the concrete topic name (a decision noted in the contract), so a switch would change nothing',
  },
  {
    id: 'client-total-ignores-filter',
    spec: 'allows',
    notes: 'notes §11.27, §4.9',
    why: 'already-simulated',
    reason:
      "the client list's total_count is already the tenant's or cluster's total before the client_id filter (contract: totalCount \"scope\")",
  },
  {
    id: 'system-monitor-percent-read-view',
    spec: 'allows',
    notes: 'notes §11.25',
    why: 'already-simulated',
    reason: 'config get already shows the system-monitor watermarks as percentages (70, 80)',
  },
  {
    id: 'health-ready-503-code-0',
    spec: 'allows',
    notes: 'notes §11.16, §4.12',
    why: 'already-simulated',
    reason: 'a not-ready /health/ready already answers HTTP 503 with code 0, status not_ready',
  },
  {
    id: 'topic-create-unknown-tenant',
    spec: 'allows',
    notes: 'notes §11.28, §4.3',
    why: 'already-simulated',
    reason: 'topic create does not check that the tenant exists in the simulator either (an unknown tenant gets the default quota)',
  },
  {
    id: 'config-set-invalid-json-persisted',
    spec: 'allows',
    notes: 'notes §11.26, §4.1',
    why: 'not-observable',
    reason:
      'the invalid text is persisted in the meta service but never reaches the in-memory configuration that config get shows; only a restart of the real server would reveal it',
  },
];
