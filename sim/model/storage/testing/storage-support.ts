import Ajv2020 from 'ajv/dist/2020.js';
import { endpointById } from '../../../../contract/index.ts';
import type { Cluster } from '../../cluster/cluster.ts';

const ajv = new Ajv2020.default({ strict: false, allErrors: true });

/**
 * Test helper: the schema problems of `data` against the response schema of contract endpoint `id`
 * ('' when it matches). For list endpoints `data` is one record.
 */
export function contractProblems(id: string, data: unknown): string {
  const schema = endpointById(id).response.data;
  if (!schema) return '';
  const validate = ajv.compile(schema);
  return validate(data) ? '' : ajv.errorsText(validate.errors);
}

/** A storage invariant violation seen by `runChecked`. */
export interface SeenViolation {
  name: string;
  message: string;
  at: number;
}

/**
 * Test helper: runs the cluster's events one at a time until `untilMs` (virtual), checking every
 * registered storage invariant after each event. Returns the storage violations seen (first of each).
 */
export function runChecked(cluster: Cluster, forMs: number): SeenViolation[] {
  const engine = cluster.engine;
  const until = engine.now() + forMs;
  const seen = new Map<string, SeenViolation>();
  let events = 0;
  for (;;) {
    const next = engine.queue.peek();
    if (!next || next.at > until) break;
    engine.queue.pop();
    engine.clock.advanceTo(next.at);
    next.run();
    events++;
    for (const v of cluster.invariants.checkAll(engine.now(), events)) {
      if (v.name.startsWith('storage.') && !seen.has(v.name)) seen.set(v.name, { name: v.name, message: v.message, at: v.at });
    }
  }
  engine.clock.advanceTo(until);
  return [...seen.values()];
}

/** Test helper: a node's process dies. */
export function crashNode(cluster: Cluster, id: number): void {
  cluster.nodes.crash(id);
}

/** Test helper: a dead node's process starts again with its data. */
export function restartNode(cluster: Cluster, id: number): void {
  cluster.nodes.restart(id);
}
