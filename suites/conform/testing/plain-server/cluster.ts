import { ok, type Answer } from './answers.ts';

/**
 * The cluster around the records: one node that is meta, broker and engine at once, leading its own
 * one-member Raft group (spec: Cluster status; Health). Nothing here changes but the log index,
 * which counts the acknowledged writes.
 */

const VERSION = 'plain-list-server 1.0.0';

const NODE_ID = 1;
const IP = '127.0.0.1';
const GRPC = `${IP}:1228`;

/** GET /health/ready: this server has one port, and it answers. */
export const ready = (): Answer => ok({ status: 'ok', check_type: 'ready', message: 'all configured ports are ready' });

export const nodeHealth = (): Answer => ok({ status: 'ok', check_type: 'node', message: 'the node is alive' });

/** The status object (`meta` in its single Raft state form). */
export function status(startedAtSeconds: number, writes: number, nowMs: number): Answer {
  const leader = { term: 1, node_id: NODE_ID };
  const applied = { leader_id: leader, index: writes + 1 };
  const nanos = nowMs * 1_000_000;
  const node = {
    roles: ['meta', 'broker', 'engine'],
    // The spec types `extend` as a byte array; this node has nothing to add.
    extend: [],
    node_id: NODE_ID,
    node_ip: IP,
    grpc_addr: GRPC,
    engine_addr: `${IP}:1778`,
    start_time: startedAtSeconds,
    register_time: startedAtSeconds,
    storage_fold: ['/var/lib/plain-list-server'],
  };
  const meta = {
    running_state: { Ok: null },
    id: NODE_ID,
    current_term: 1,
    vote: { leader_id: leader, committed: true },
    last_log_index: writes + 1,
    last_applied: applied,
    snapshot: null,
    purged: null,
    state: 'Leader',
    current_leader: NODE_ID,
    millis_since_quorum_ack: 0,
    last_quorum_acked: nanos,
    membership_config: {
      log_id: { leader_id: leader, index: 1 },
      membership: { configs: [[NODE_ID]], nodes: { [String(NODE_ID)]: { node_id: NODE_ID, rpc_addr: GRPC } } },
    },
    heartbeat: { [String(NODE_ID)]: nanos },
    replication: { [String(NODE_ID)]: applied },
  };
  return ok({
    version: VERSION,
    cluster_name: 'plain-list-cluster',
    start_time: startedAtSeconds,
    broker_node_list: [node],
    nodes: [IP],
    meta,
  });
}
