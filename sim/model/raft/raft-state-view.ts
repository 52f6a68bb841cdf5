import type { RaftNode } from './raft-node.ts';
import { logId, type LogId } from './types.ts';
import type { RaftStateRecord } from '../../../contract/records.ts';

const NANOS_PER_MS = 1_000_000;

const copyLogId = (id: LogId): LogId => logId(id.leader_id.term, id.leader_id.node_id, id.index);

/**
 * The spec's Raft state object of one group as `node` sees it, computed from its real state. The
 * leader reports its members' heartbeats and replication; followers and candidates report null
 * there (as openraft does). A node whose process is down shows what it persisted.
 */
export function raftStateView(node: RaftNode, now: number): RaftStateRecord {
  const log = node.log;
  const isLeader = node.alive && node.role === 'Leader';
  const membership = log.membership;
  const nodes: Record<string, { node_id: number; rpc_addr: string }> = {};
  for (const [id, addr] of [...membership.nodes].sort((a, b) => a[0] - b[0])) nodes[String(id)] = { node_id: id, rpc_addr: addr };
  let heartbeat: Record<string, number | null> | null = null;
  let replication: Record<string, LogId | null> | null = null;
  let quorumAck: number | null = null;
  if (isLeader) {
    heartbeat = {};
    replication = {};
    for (const id of membership.voters) {
      if (id === node.id) {
        heartbeat[String(id)] = now * NANOS_PER_MS;
        replication[String(id)] = log.lastLogId();
        continue;
      }
      const p = node.peers.get(id);
      heartbeat[String(id)] = p === undefined || p.ackAt < 0 ? null : p.ackAt * NANOS_PER_MS;
      replication[String(id)] = p === undefined || p.match <= 0 ? null : log.logIdAt(p.match);
    }
    const at = node.quorumAckAt();
    quorumAck = at >= 0 ? at : null;
  }
  const leader = node.alive ? node.leaderId : null;
  const applied = log.logIdAt(node.lastApplied) ?? logId(log.baseTerm, log.baseLeader, log.baseIndex);
  const snapshot = log.snapshot === null ? null : logId(log.snapshot.term, log.snapshot.leader, log.snapshot.index);
  return {
    running_state: { Ok: null },
    id: node.id,
    current_term: node.term,
    // openraft's vote: whom this node follows in its term, committed once that leader is known.
    vote: { leader_id: { term: node.term, node_id: leader ?? node.store.votedFor ?? 0 }, committed: leader !== null },
    last_log_index: log.lastIndex,
    last_applied: applied,
    snapshot,
    // The log is purged up to the snapshot.
    purged: snapshot,
    state: node.alive ? node.role : 'Follower',
    current_leader: leader,
    millis_since_quorum_ack: quorumAck === null ? null : now - quorumAck,
    last_quorum_acked: quorumAck === null ? null : quorumAck * NANOS_PER_MS,
    membership_config: { log_id: copyLogId(log.membershipLogId), membership: { configs: [[...membership.voters]], nodes } },
    heartbeat,
    replication,
  };
}
