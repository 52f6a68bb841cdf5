import { describe, expect, it } from 'vitest';
import { replicaProblems } from './consistency-checks.ts';

const replica = (node: number, extra: Record<string, unknown> = {}) => ({
  node_id: node,
  replica_seq: node - 1,
  fold: '/data',
  is_leader: node === 1,
  in_isr: true,
  role: node === 1 ? 'Leader' : 'Follower',
  leader_epoch: 0,
  segment_epoch: 0,
  leo: 10,
  high_watermark: 10,
  log_start_offset: 0,
  follower_progress:
    node === 1
      ? [
          { node_id: 2, leo: 10, last_caught_up_ts: 1_767_225_600, lag: 0 },
          { node_id: 3, leo: 10, last_caught_up_ts: 1_767_225_600, lag: 0 },
        ]
      : [],
  fetch: node === 1 ? null : { leader_node_id: 1, current_leader_epoch: 0, max_bytes: 1048576, fetcher_index: 0, thread_running: true },
  available: true,
  error: null,
  ...extra,
});

const detail = (replicas: unknown[], segment: Record<string, unknown> = {}) => ({
  segment: {
    shard_name: 's',
    segment_seq: 0,
    leader: 1,
    isr: [1, 2, 3],
    status: 'Write',
    replicas: [1, 2, 3].map((n) => ({ replica_seq: n - 1, node_id: n, fold: '/data' })),
    ...segment,
  },
  replicas,
});

describe('replicaProblems', () => {
  it('accepts a consistent replicated segment', () => {
    expect(replicaProblems(detail([replica(1), replica(2), replica(3)]))).toEqual([]);
  });

  it('accepts an unreachable replica that says why', () => {
    expect(
      replicaProblems(
        detail([replica(1), replica(2), replica(3, { available: false, error: 'connect ECONNREFUSED', role: 'Unknown', fetch: null })]),
      ),
    ).toEqual([]);
  });

  it('names each broken rule', () => {
    const problems = replicaProblems(
      detail(
        [
          replica(1, { follower_progress: [{ node_id: 2, leo: 7, last_caught_up_ts: 0, lag: 1 }] }),
          replica(2, { is_leader: true, role: 'Leader', high_watermark: 99 }),
          replica(3, { available: false, error: '' }),
        ],
        { isr: [1, 2] },
      ),
    );
    expect(problems.join('\n')).toMatch(/2 replicas claim is_leader/);
    expect(problems.join('\n')).toMatch(/node 2 is_leader but the segment's leader is 1/);
    expect(problems.join('\n')).toMatch(/node 3 has in_isr true/);
    expect(problems.join('\n')).toMatch(/carries no error text/);
    expect(problems.join('\n')).toMatch(/lag 1 is not leader leo 10 minus 7/);
    expect(problems.join('\n')).toMatch(/high_watermark 99 above its leo 10/);
    expect(replicaProblems(detail([replica(1), replica(2)]))[0]).toMatch(/do not match the segment's replicas/);
  });
});
