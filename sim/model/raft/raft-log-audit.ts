import type { RaftGroupCore } from './raft-group-core.ts';

/**
 * A full scan of one group's logs, for the end of a run (tests, chaos reports): the incremental
 * checkers see every change as it happens, this looks at the result. Returns the problems found:
 * - log matching: where two logs hold an entry of the same term at an index, it is the same entry;
 * - committed prefixes agree: up to the lower of two nodes' commit indexes, their logs are identical;
 * - state machines agree: nodes that applied up to the same index applied the same entries.
 */
export function fullLogAudit(core: RaftGroupCore): string[] {
  const problems: string[] = [];
  const nodes = [...core.nodes.values()];
  for (let x = 0; x < nodes.length; x++) {
    for (let y = x + 1; y < nodes.length; y++) {
      const a = nodes[x];
      const b = nodes[y];
      const from = Math.max(a.log.baseIndex, b.log.baseIndex) + 1;
      const to = Math.min(a.log.lastIndex, b.log.lastIndex);
      const committed = Math.min(a.commitIndex, b.commitIndex);
      for (let i = from; i <= to; i++) {
        const sameTerm = a.log.termAt(i) === b.log.termAt(i);
        if (sameTerm && a.log.uidAt(i) !== b.log.uidAt(i)) {
          problems.push(`[${core.name}] nodes ${a.id} and ${b.id} hold different entries of term ${a.log.termAt(i)} at index ${i}`);
          break;
        }
        if (i <= committed && a.alive && b.alive && !sameTerm) {
          problems.push(`[${core.name}] nodes ${a.id} and ${b.id} committed different entries at index ${i}`);
          break;
        }
      }
      if (a.alive && b.alive && a.lastApplied === b.lastApplied && a.appliedTotal !== b.appliedTotal) {
        problems.push(`[${core.name}] nodes ${a.id} and ${b.id} applied up to ${a.lastApplied} but hold different state machines`);
      }
    }
  }
  return problems;
}
