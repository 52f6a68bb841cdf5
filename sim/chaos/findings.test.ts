import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../http/in-process-client.ts';
import { runPlan } from './chaos-runner.ts';
import { parseReplayFile } from './replay-file.ts';

const FINDINGS = join(import.meta.dirname, '../../fixtures/scenarios/findings');

describe('chaos findings stay fixed (regressions)', () => {
  for (const name of readdirSync(FINDINGS).filter((f) => f.endsWith('.json'))) {
    it(`${name} no longer breaks an invariant`, async () => {
      const saved = parseReplayFile(readFileSync(join(FINDINGS, name), 'utf8'), name);
      expect(saved.expect.violations.length).toBeGreaterThan(0); // it did break one when it was found
      const { result } = await runPlan(saved.options, saved.plan);
      expect(result.violations).toEqual([]);
    });
  }

  it('node leave is refused when the node holds the only in-sync copy of a segment, and allowed once another copy exists', async () => {
    const sim = new InProcessSim({ nodes: 5, seed: 3 });
    const created = await sim.post('/api/cluster/topic/create', { tenant: 'default', topic_name: 'solo', storage_type: 'EngineSegment', partition: 1, replication: 1 });
    expect(created.json.code).toBe(0);
    const shard = sim.cluster.storage.all().find((s) => s.topicName === 'solo')!;
    const holder = shard.segments[0].leaderNodeId;
    sim.cluster.nodes.stop(holder);
    sim.advance(500);
    const refused = await sim.post('/api/cluster/node/leave', { node_id: holder });
    expect(refused.json.code).toBe(1);
    expect(refused.json.message).toContain(`Node ${holder} holds the only in-sync replica on a live node of shard ${shard.name} segment 0`);
    expect(sim.cluster.nodes.get(holder)!.removed).toBe(false);
    expect(sim.cluster.raft.groups().every((g) => g.isVoter(holder))).toBe(true); // nothing changed

    // A node holding only replicated segments leaves: the other in-sync copy keeps the data.
    const other = [1, 2, 3, 4, 5].find((n) => n !== holder)!;
    sim.cluster.nodes.restart(holder);
    await sim.post('/api/cluster/topic/create', { tenant: 'default', topic_name: 'triple', storage_type: 'EngineSegment', partition: 1, replication: 3 });
    const tripleSeg = sim.cluster.storage.all().find((s) => s.topicName === 'triple')!.segments[0];
    const leaver = tripleSeg.replicas.map((r) => r.nodeId).find((n) => n !== holder) ?? other;
    sim.advance(2_000);
    sim.cluster.nodes.stop(leaver);
    sim.advance(500);
    const left = await sim.post('/api/cluster/node/leave', { node_id: leaver });
    expect(left.json.code).toBe(0);
  });
});
