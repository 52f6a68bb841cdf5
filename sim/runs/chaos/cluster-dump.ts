import type { Cluster } from '../../model/cluster/cluster.ts';

/** The state of a cluster at one point of a run, for `mqsim replay --until EVENT --dump`. */
export interface ClusterDump {
  event: number;
  at: number;
  trace_length: number;
  nodes: { id: number; online: boolean; removed: boolean }[];
  groups: { name: string; leader: number | null; term: number; voters: number[] }[];
  isr: {
    segments: number;
    /** Segments whose ISR is smaller than their replica set. */
    under_replicated: number;
    /** Segments with no live ISR member. */
    unavailable: number;
    min_isr: number | null;
    detail: { shard: string; seq: number; leader: number; leader_epoch: number; replicas: number[]; isr: number[]; hw: number }[];
  };
  network: { blocked_links: string[] };
}

export function dumpCluster(cluster: Cluster, event: number): ClusterDump {
  const nodes = cluster.nodes.all().map((n) => ({ id: n.id, online: n.online, removed: n.removed }));
  const groups = cluster.raft.groups().map((g) => ({ name: g.name, leader: g.leaderId, term: g.term, voters: g.voters }));
  const detail: ClusterDump['isr']['detail'] = [];
  let under = 0;
  let unavailable = 0;
  let minIsr: number | null = null;
  for (const shard of cluster.storage.all()) {
    for (const seg of shard.segments) {
      if (seg.gone) continue;
      if (seg.isr.length < seg.replicas.length) under++;
      if (!seg.available) unavailable++;
      minIsr = minIsr === null ? seg.isr.length : Math.min(minIsr, seg.isr.length);
      detail.push({
        shard: shard.name,
        seq: seg.seq,
        leader: seg.leaderNodeId,
        leader_epoch: seg.leaderEpoch,
        replicas: seg.replicas.map((r) => r.nodeId),
        isr: [...seg.isr],
        hw: seg.hw,
      });
    }
  }
  const ids = nodes.map((n) => n.id);
  const blocked: string[] = [];
  for (const a of ids) for (const b of ids) if (a !== b && cluster.network.isBlocked(a, b)) blocked.push(`${a}->${b}`);
  return {
    event,
    at: cluster.now(),
    trace_length: cluster.engine.trace.length,
    nodes,
    groups,
    isr: { segments: detail.length, under_replicated: under, unavailable, min_isr: minIsr, detail },
    network: { blocked_links: blocked },
  };
}
