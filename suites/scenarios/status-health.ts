import { runHealthChecks } from '../conform/checks/behaviour-checks.ts';
import { runLoopbackExemptionCheck } from '../conform/checks/capabilities.ts';
import { describeAnswer, envelopeOf, fail, pass, skip, succeeded } from '../conform/conform-context.ts';
import type { FamilySuite } from './family-suite.ts';
import { dataOf, type Row } from './helpers.ts';

/**
 * Cluster status and health probes (spec: Cluster status; Health; Versioning): the status object's
 * own consistency, /api/status and /api/info telling the same cluster, the readiness probe in both
 * states (503 only with the simulator's control, which can close a node's ports).
 */

const ids = (nodes: unknown): string => JSON.stringify((Array.isArray(nodes) ? (nodes as Row[]) : []).map((n) => Number(n.node_id)).sort((a, b) => a - b));

export const statusHealth: FamilySuite = {
  family: 'cluster-status/health',
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
          if (JSON.stringify([...got].sort()) !== JSON.stringify(want)) return fail(`nodes ${JSON.stringify(got)} are not the distinct node_ip values of broker_node_list ${JSON.stringify(want)}`, env.happy);
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
          return name === status.cluster_name ? pass(`both name the cluster ${JSON.stringify(name)}`, undefined, name === status.version || name.length === 0) : fail(`status says cluster ${JSON.stringify(status.cluster_name)}, config get says ${JSON.stringify(name)}`, config);
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
          if (a.cluster_name !== b.cluster_name || a.version !== b.version) return fail(`/api/info says ${JSON.stringify({ cluster_name: a.cluster_name, version: a.version })}, /api/status ${JSON.stringify({ cluster_name: b.cluster_name, version: b.version })}: both are the cluster status`, env.happy);
          if (ids(a.broker_node_list) !== ids(b.broker_node_list)) return fail(`/api/info lists brokers ${ids(a.broker_node_list)}, /api/status ${ids(b.broker_node_list)}`, env.happy);
          // Placeholders agree with placeholders: a name equal to the version tells nothing.
          return pass('same cluster, version and brokers as /api/status', undefined, a.cluster_name === a.version || ids(a.broker_node_list) === '[]');
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
      checks: ['health.ready-503-when-not-ready'],
      assertion: 'endpoints.health.ready.not-ready',
      needs: ['control'],
      async run(ctx, e) {
        const control = ctx.target.control!;
        await ctx.check(e, 'health.ready-503-when-not-ready', 'endpoints.health.ready.not-ready', async () => {
          control.setPortsReady(1, false);
          try {
            const ex = await ctx.call(e, {});
            const data = envelopeOf(ex)?.data as Row | undefined;
            if (ex.response?.status !== 503) return fail(`node 1's ports are not ready: the probe must answer HTTP 503, got ${describeAnswer(ex)}`, ex);
            if (envelopeOf(ex)?.code !== 0) return fail(`the not-ready answer still has code 0, got ${describeAnswer(ex)}`, ex);
            if (data?.status !== 'not_ready' || data.check_type !== 'ready') return fail(`expected {status: "not_ready", check_type: "ready"}, got ${JSON.stringify(data)}`, ex);
            if (typeof data.message !== 'string' || !/not ready/i.test(data.message)) return fail(`the message must state that ports are not ready, got ${JSON.stringify(data.message)}`, ex);
            return pass(`HTTP 503, status not_ready: ${JSON.stringify(data.message)}`);
          } finally {
            control.setPortsReady(1, true);
          }
        });
      },
    },
  ],
};
