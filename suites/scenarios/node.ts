import { runNodeLeaveChecks } from '../conform/checks/behaviour-checks.ts';
import { onlineNodeIds } from '../conform/fixture-setup.ts';
import { recordAnswerChecks } from '../conform/checks/happy-path.ts';
import { describeAnswer, envelopeOf, fail, pass, skip, succeeded } from '../conform/conform-context.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import { dataOf, letTimePass, type Row, waitFor } from '../conform/check-helpers.ts';

/**
 * Node removal (spec: Node removal, rules 1-5; Errors). Without the simulator's control only what
 * cannot harm a cluster is sent: an online node without `force` (refused), node_id 0 (invalid), a
 * node id the cluster never had (rule 3: success without effect). With the control a node is
 * stopped and removed (rule 5's text), the next removal from 2-voter groups is refused (rule 2's
 * text), and the node rejoins after a wipe (rule 4), leaving the cluster as it was.
 */

/** Rule 5: the text says the node was removed and its data directory must be wiped before rejoining. */
export function removalTextProblem(text: unknown, nodeId: number): string | undefined {
  if (typeof text !== 'string') return `data must be the removal text, got ${JSON.stringify(text)}`;
  if (!/remov/i.test(text)) return `the text does not state that the node was removed: ${JSON.stringify(text)}`;
  if (!/wip|data dir/i.test(text))
    return `the text does not state that the data directory must be wiped before rejoining: ${JSON.stringify(text)}`;
  if (!new RegExp(`\\b${nodeId}\\b`).test(text)) return `the text does not name node ${nodeId}: ${JSON.stringify(text)}`;
  return undefined;
}

/** Rule 2: the refusal names the group, the node and the voter count. */
export function quorumTextProblem(
  text: string | null | undefined,
  nodeId: number,
  groups: readonly string[],
  voters: number,
): string | undefined {
  if (!text) return 'the refusal carries no text';
  const missing: string[] = [];
  if (!groups.some((g) => text.includes(g))) missing.push(`a group (${groups.join(', ')})`);
  if (!new RegExp(`\\b${nodeId}\\b`).test(text)) missing.push(`node ${nodeId}`);
  if (!new RegExp(`\\b${voters}\\b`).test(text)) missing.push(`the voter count ${voters}`);
  return missing.length > 0 ? `the text does not name ${missing.join(', ')}: ${JSON.stringify(text)}` : undefined;
}

export const node: ScenarioSuite = {
  name: 'node',
  tags: ['node'],
  scenarios: [
    {
      endpoint: 'POST /api/cluster/node/leave',
      checks: ['node-leave.refuses-online-node', 'node-leave.node-id-minimum'],
      assertion: 'endpoints.node-leave.online',
      run: (ctx, e) => runNodeLeaveChecks(ctx, e),
    },
    {
      endpoint: 'POST /api/cluster/node/leave',
      checks: ['node-leave.unknown-node-succeeds', 'node-leave.unknown-node-text'],
      assertion: 'endpoints.node-leave.no-membership',
      async run(ctx, e) {
        const known = ctx.state.onlineNodeIds ?? [];
        const nodeId = Math.max(0, ...known) + 1000;
        const ex = await ctx.call(e, { node_id: nodeId });
        // Rule 3 is the valid request every target can be sent: it is the endpoint's happy path.
        // (With the simulator's control and 3 nodes, the removal of a stopped node is sent instead.)
        if (!ctx.target.control || ctx.target.control.nodeCount < 3 || known.length < 3) await recordAnswerChecks(ctx, e, ex);
        await ctx.check(e, 'node-leave.unknown-node-succeeds', 'endpoints.node-leave.no-membership', () => {
          if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
          if (!succeeded(ex))
            return fail(
              `node ${nodeId} is in no group membership: rule 3 says the request succeeds without effect, got ${describeAnswer(ex)}`,
              ex,
            );
          // A success is evidence only from a server that refuses what rule 1 forbids (it does not answer yes to everything).
          return pass(
            `node ${nodeId} (in no membership) answered success: ${JSON.stringify(envelopeOf(ex)?.data)}`,
            undefined,
            ctx.state.refusesOnlineNodeLeave !== true,
          );
        });
        // The project's decision: a node id the cluster never had gets the text of a removal (rule 5's), naming it.
        await ctx.check(e, 'node-leave.unknown-node-text', 'decision.node-leave.unknown-node', () => {
          if (!succeeded(ex)) return skip(`the removal of node ${nodeId} did not succeed (${describeAnswer(ex)})`);
          const problem = removalTextProblem(envelopeOf(ex)?.data, nodeId);
          return problem
            ? fail(problem, ex)
            : pass(`the text of a removal: ${JSON.stringify(envelopeOf(ex)?.data)}`, undefined, ctx.state.refusesOnlineNodeLeave !== true);
        });
      },
    },
    {
      endpoint: 'POST /api/cluster/node/leave',
      checks: ['node-leave.removes-stopped-node', 'node-leave.quorum-refusal', 'node-leave.rejoin-after-wipe'],
      assertion: 'endpoints.node-leave.membership',
      needs: ['control'],
      async run(ctx, e) {
        const control = ctx.target.control!;
        const status = ctx.endpoint('GET', '/api/status');
        const ids = ctx.state.onlineNodeIds ?? (await onlineNodeIds(ctx));
        if (control.nodeCount < 3 || ids.length < 3 || !status) {
          for (const id of ['node-leave.removes-stopped-node', 'node-leave.quorum-refusal', 'node-leave.rejoin-after-wipe']) {
            await ctx.check(
              e,
              id,
              id === 'node-leave.quorum-refusal' ? 'endpoints.node-leave.quorum' : 'endpoints.node-leave.membership',
              () => skip(`needs a cluster of at least 3 online nodes (has ${ids.length})`),
            );
          }
          return;
        }
        // The run talks to node 1: stop and remove the highest, then try the next one.
        const removed = ids[ids.length - 1];
        const next = ids[ids.length - 2];
        const groupsOf = async (): Promise<string[]> => {
          const meta = dataOf(await ctx.call(status, {}, 'fixture'))?.meta as Row | undefined;
          return meta && !('state' in meta) ? Object.keys(meta) : ['meta', 'mqtt', 'offset', 'data'];
        };
        const groups = await groupsOf();
        control.stopNode(removed);
        // A stopped leader's groups elect a new one first; a removal needs every group led (Raft state: current_leader).
        await waitFor(ctx, 15_000, 250, async () => {
          const meta = dataOf(await ctx.call(status, {}, 'fixture'))?.meta as Row | undefined;
          const states = (meta && 'state' in meta ? [meta] : Object.values(meta ?? {})) as Row[];
          return states.length > 0 && states.every((g) => typeof g.current_leader === 'number' && g.current_leader !== removed)
            ? true
            : undefined;
        });
        let left = false;
        try {
          const ex = await ctx.call(e, { node_id: removed });
          left = succeeded(ex);
          await recordAnswerChecks(ctx, e, ex);
          await ctx.check(e, 'node-leave.removes-stopped-node', 'endpoints.node-leave.membership', () => {
            if (!succeeded(ex))
              return fail(`node ${removed} is stopped and in every group: its removal must succeed, got ${describeAnswer(ex)}`, ex);
            const problem = removalTextProblem(envelopeOf(ex)?.data, removed);
            // A node is removed from the cluster for good (service.node-removal): it may come back only wiped, as a new node.
            return {
              ...(problem ? fail(problem, ex) : pass(`node ${removed} removed: ${JSON.stringify(envelopeOf(ex)?.data)}`)),
              also: ['service.node-removal'],
            };
          });
          await ctx.check(e, 'node-leave.quorum-refusal', 'endpoints.node-leave.quorum', async () => {
            if (!left) return skip('the first removal did not succeed, so no group is down to 2 voters');
            // force: rule 1 does not apply, so the refusal can only come from rule 2, before any change.
            const refused = await ctx.call(e, { node_id: next, force: true });
            const env = envelopeOf(refused);
            if (succeeded(refused)) {
              // The target removed a live node: put it back as the spec requires (stop, wipe, start).
              control.stopNode(next);
              control.startNode(next, { wiped: true });
              return fail(
                `every group has 2 voters after node ${removed} left: removing node ${next} must be refused (needs at least 3 voters), but it was accepted`,
                refused,
              );
            }
            if (!env || ![1, 100].includes(env.code))
              return fail(`the refusal must be an error with code 1, got ${describeAnswer(refused)}`, refused);
            const problem = quorumTextProblem(env.text, next, groups, 2);
            return problem ? fail(problem, refused) : pass(`refused: ${JSON.stringify(env.text)}`);
          });
        } finally {
          if (left) control.startNode(removed, { wiped: true });
          else control.startNode(removed);
        }
        await ctx.check(e, 'node-leave.rejoin-after-wipe', 'decision.node-leave.rejoin', async () => {
          const back = await waitFor(ctx, 10_000, 500, async () => {
            const now = await onlineNodeIds(ctx);
            return now.includes(removed) ? now : undefined;
          });
          await letTimePass(ctx, 2000);
          if (!back) return fail(`node ${removed} did not come back in the broker node list after a wiped restart`);
          return pass(`node ${removed} rejoined after its data directory was wiped (${back.length} nodes online)`);
        });
      },
    },
  ],
};
