import { runHealthChecks } from '../conform/checks/behaviour-checks.ts';
import { runLoopbackExemptionCheck } from '../conform/checks/capabilities.ts';
import { describeAnswer, envelopeOf, fail, inconclusive, pass, skip, succeeded } from '../conform/conform-context.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import { dataOf, type Row } from '../conform/check-helpers.ts';

/**
 * Cluster status and health probes (spec: Cluster status; Health; Versioning): the status object's
 * own consistency, /api/status and /api/info telling the same cluster, the readiness probe in both
 * states (503 only with the simulator's control, which can close a node's ports).
 */

const ids = (nodes: unknown): string =>
  JSON.stringify((Array.isArray(nodes) ? (nodes as Row[]) : []).map((n) => Number(n.node_id)).sort((a, b) => a - b));

export const statusHealth: ScenarioSuite = {
  name: 'cluster-status/health',
  tags: ['status', 'cluster-status', 'health'],
  scenarios: [
    {
      endpoint: 'GET /api/status',
      checks: ['status.nodes-distinct-ips', 'status.cluster-name-matches-config'],
      assertion: 'resources.status.nodes',
      async run(ctx, e, env) {
        const status = env.happy && succeeded(env.happy) ? dataOf(env.happy) : undefined;
        await ctx.check(e, 'status.nodes-distinct-ips', 'resources.status.nodes', () => {
          if (!status) return skip('no status object to look at');
          const list = Array.isArray(status.broker_node_list) ? (status.broker_node_list as Row[]) : [];
          const want = [...new Set(list.map((n) => String(n.node_ip)))].sort();
          const got = Array.isArray(status.nodes) ? (status.nodes as unknown[]).map(String) : [];
          if (new Set(got).size !== got.length) return fail(`nodes must hold distinct IPs, got ${JSON.stringify(got)}`, env.happy);
          if (JSON.stringify([...got].sort()) !== JSON.stringify(want))
            return fail(
              `nodes ${JSON.stringify(got)} are not the distinct node_ip values of broker_node_list ${JSON.stringify(want)}`,
              env.happy,
            );
          // One broker with one address agrees with any rule: evidence needs several brokers.
          return pass(`nodes = the ${want.length} distinct IPs of the ${list.length} brokers`, undefined, list.length < 2);
        });
        await ctx.check(e, 'status.cluster-name-matches-config', 'resources.status.cluster_name', async () => {
          const get = ctx.endpoint('GET', '/api/cluster/config/get');
          if (!status || !get) return skip('no status object or config get to compare');
          const config = await ctx.call(get, {});
          const name = dataOf(config)?.cluster_name;
          if (!succeeded(config) || typeof name !== 'string') return skip(`config get shows no cluster_name (${describeAnswer(config)})`);
          // A name equal to another text of the status object (its version) is a placeholder, not a name.
          return name === status.cluster_name
            ? pass(`both name the cluster ${JSON.stringify(name)}`, undefined, name === status.version || name.length === 0)
            : fail(`status says cluster ${JSON.stringify(status.cluster_name)}, config get says ${JSON.stringify(name)}`, config);
        });
      },
    },
    {
      // The exemption probe asks /api/status from 127.0.0.2: a wider exemption shows on this endpoint.
      endpoint: 'GET /api/status',
      checks: ['auth.loopback-exemption'],
      assertion: 'auth.rule-2-remote-token',
      run: (ctx, e) => runLoopbackExemptionCheck(ctx, e),
    },
    {
      // Authentication rule 1: the run's ordinary requests come from 127.0.0.1 (or ::1) on a loopback target.
      endpoint: 'GET /api/status',
      checks: ['auth.loopback-without-token'],
      assertion: 'auth.rule-1-loopback',
      async run(ctx, e) {
        await ctx.check(e, 'auth.loopback-without-token', 'auth.rule-1-loopback', async () => {
          if (!ctx.target.capabilities.loopback)
            return skip('the target is not reached over loopback, so the run cannot send from 127.0.0.1 or ::1');
          const ex = await ctx.send({ method: e.method, path: e.path, auth: 'none' }, 'check', e.id);
          if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
          if (succeeded(ex)) return pass(`${e.path} from the loopback address without a token: ${describeAnswer(ex)}`);
          // Behind Docker's port mapping or a local proxy the server sees another peer than 127.0.0.1: only the
          // simulator (whose peer the run sets) shows for certain that a loopback request was refused.
          if (ex.response.status === 401 && !ctx.target.control)
            return inconclusive(
              `a request from the loopback address without a token got ${describeAnswer(ex)}; the server may see another peer (a port mapping or proxy in between), so this does not show it refuses loopback`,
              ex,
            );
          return fail(`a request from the loopback address (exempt from tokens) without a token got ${describeAnswer(ex)}`, ex);
        });
      },
    },
    {
      endpoint: 'GET /api/status',
      checks: ['status.meta-groups', 'status.raft-leader-only'],
      assertion: 'decision.status.meta-groups',
      async run(ctx, e, env) {
        const meta = env.happy && succeeded(env.happy) ? dataOf(env.happy)?.meta : undefined;
        const groups = meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? Object.entries(meta as Row) : [];
        const isState = (v: unknown): v is Row => v !== null && typeof v === 'object' && !Array.isArray(v) && 'current_term' in v;
        await ctx.check(e, 'status.meta-groups', 'decision.status.meta-groups', () => {
          if (meta === undefined) return skip('no status object to look at');
          if (isState(meta)) return fail('meta is one Raft state object; the contract gives the map form (group name to state)', env.happy);
          const bad = groups.filter(([k, v]) => !/^(meta|mqtt|offset|data)(_?\d+)?$/.test(k) || !isState(v)).map(([k]) => k);
          if (groups.length === 0 || bad.length > 0)
            return fail(
              `meta must map the group names meta, mqtt, offset, data (numbered when several) to Raft state objects; got keys ${JSON.stringify(groups.map(([k]) => k))}`,
              env.happy,
            );
          return pass(`meta maps ${groups.map(([k]) => k).join(', ')} to Raft state objects`);
        });
        await ctx.check(e, 'status.raft-leader-only', 'decision.status.raft-leader-only', () => {
          const states = groups.filter(([, v]) => isState(v)) as [string, Row][];
          if (states.length === 0) return skip('no Raft state objects to look at');
          const fields = ['heartbeat', 'replication', 'millis_since_quorum_ack', 'last_quorum_acked'];
          // A group another node leads, as the answer itself tells (state not Leader, current_leader a node other than its id).
          const followers = states.filter(
            ([, v]) => v.state !== 'Leader' && typeof v.current_leader === 'number' && v.current_leader !== v.id,
          );
          const filled = followers.filter(([, v]) => fields.some((f) => v[f] !== null && v[f] !== undefined));
          if (filled.length > 0)
            return fail(
              `groups ${filled.map(([k]) => k).join(', ')} are not led by the answering node (state ${JSON.stringify(filled[0][1].state)}) but fill ${fields.filter((f) => filled[0][1][f] !== null && filled[0][1][f] !== undefined).join(', ')}`,
              env.happy,
            );
          const ledFilled = states.some(([, v]) => v.state === 'Leader' && fields.some((f) => v[f] !== null && v[f] !== undefined));
          // Only a group another node leads can show the fields left null.
          return pass(
            `${followers.length} groups led by another node leave ${fields.join(', ')} null${ledFilled ? '; a group the answering node leads fills them' : ''}`,
            undefined,
            followers.length === 0,
          );
        });
      },
    },
    {
      endpoint: 'GET /api/info',
      checks: ['status.info-matches-status'],
      assertion: 'endpoints.status',
      async run(ctx, e, env) {
        await ctx.check(e, 'status.info-matches-status', 'endpoints.status', async () => {
          const status = ctx.endpoint('GET', '/api/status');
          if (!status || !env.happy || !succeeded(env.happy)) return skip('no successful /api/info answer or no /api/status to compare');
          const other = await ctx.call(status, {});
          const a = dataOf(env.happy)!;
          const b = dataOf(other);
          if (!b) return skip(`/api/status did not answer (${describeAnswer(other)})`);
          if (a.cluster_name !== b.cluster_name || a.version !== b.version)
            return fail(
              `/api/info says ${JSON.stringify({ cluster_name: a.cluster_name, version: a.version })}, /api/status ${JSON.stringify({ cluster_name: b.cluster_name, version: b.version })}: both are the cluster status`,
              env.happy,
            );
          if (ids(a.broker_node_list) !== ids(b.broker_node_list))
            return fail(`/api/info lists brokers ${ids(a.broker_node_list)}, /api/status ${ids(b.broker_node_list)}`, env.happy);
          // Placeholders agree with placeholders: a name equal to the version tells nothing.
          return pass(
            'same cluster, version and brokers as /api/status',
            undefined,
            a.cluster_name === a.version || ids(a.broker_node_list) === '[]',
          );
        });
      },
    },
    {
      endpoint: 'GET /health/ready',
      checks: ['health.ready-body'],
      assertion: 'endpoints.health.ready.body',
      run: (ctx, e, env) => runHealthChecks(ctx, e, env.happy),
    },
    {
      endpoint: 'GET /health/node',
      checks: ['health.node-body'],
      assertion: 'endpoints.health.node',
      run: (ctx, e, env) => runHealthChecks(ctx, e, env.happy),
    },
    {
      endpoint: 'GET /health/ready',
      checks: ['health.ready-503-when-not-ready', 'health.ready-200-when-ready'],
      assertion: 'endpoints.health.ready.not-ready',
      needs: ['control'],
      async run(ctx, e) {
        const control = ctx.target.control!;
        await ctx.check(e, 'health.ready-503-when-not-ready', 'endpoints.health.ready.not-ready', async () => {
          control.setPortsReady(1, false);
          try {
            const ex = await ctx.call(e, {});
            const data = envelopeOf(ex)?.data as Row | undefined;
            if (ex.response?.status !== 503)
              return {
                ...fail(`node 1's ports are not ready: the probe must answer HTTP 503, got ${describeAnswer(ex)}`, ex),
                also: ['endpoints.health.ready.status'],
              };
            if (envelopeOf(ex)?.code !== 0) return fail(`the not-ready answer still has code 0, got ${describeAnswer(ex)}`, ex);
            if (data?.status !== 'not_ready' || data.check_type !== 'ready')
              return fail(`expected {status: "not_ready", check_type: "ready"}, got ${JSON.stringify(data)}`, ex);
            if (typeof data.message !== 'string' || !/not ready/i.test(data.message))
              return fail(`the message must state that ports are not ready, got ${JSON.stringify(data.message)}`, ex);
            return { ...pass(`HTTP 503, status not_ready: ${JSON.stringify(data.message)}`), also: ['endpoints.health.ready.status'] };
          } finally {
            control.setPortsReady(1, true);
          }
        });
        // With the ports ready again (the control says so), the probe must answer 200 with status ok.
        await ctx.check(e, 'health.ready-200-when-ready', 'endpoints.health.ready.ok', async () => {
          const ex = await ctx.call(e, {});
          const data = envelopeOf(ex)?.data as Row | undefined;
          const also = ['endpoints.health.ready.status'];
          if (ex.response?.status !== 200)
            return { ...fail(`every configured port is ready: the probe must answer HTTP 200, got ${describeAnswer(ex)}`, ex), also };
          if (
            data?.status !== 'ok' ||
            typeof data.message !== 'string' ||
            !/\bready\b/i.test(data.message) ||
            /not\s+ready/i.test(data.message)
          )
            return fail(`expected status "ok" with a message that all ports are ready, got ${JSON.stringify(data)}`, ex);
          return { ...pass(`HTTP 200, status ok: ${JSON.stringify(data.message)}`), also };
        });
      },
    },
    {
      // Decision: a path that is no endpoint is answered HTTP 404 with code 404 (the spec's code 404 row names no case).
      endpoint: 'GET /',
      checks: ['unknown-path'],
      assertion: 'decision.unknown-path',
      async run(ctx, e) {
        await ctx.check(e, 'unknown-path', 'decision.unknown-path', async () => {
          const ex = await ctx.send({ method: 'GET', path: `/api/mqsim-conform-${ctx.seed}-no-such-endpoint` }, 'check');
          if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
          const code = envelopeOf(ex)?.code;
          if (ex.response.status !== 404 || code !== 404)
            return fail(`a path that is no endpoint must be answered HTTP 404 with code 404, got ${describeAnswer(ex)}`, ex);
          return pass(`a path that is no endpoint: ${describeAnswer(ex)}`);
        });
      },
    },
  ],
};
