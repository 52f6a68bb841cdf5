/** Bugs in the behaviour rules of the spec: errors, defaults, config, node removal, probes, monitoring, state. */
import { failed, OperationError } from '../model/errors/operation-error.ts';
import { WithStatus } from '../admin-api/core/handler-types.ts';
import type { Deviation } from '../admin-api/hooks/deviation.ts';
import { aroundOn, dropWrite, validationOn } from '../admin-api/hooks/hook-helpers.ts';

type Obj = Record<string, unknown>;

/** Monitor types whose series need a topic; the spec answers [] when topic_name is missing. */
const TOPIC_TYPES = /^topic_/;

export const BEHAVIOUR_DEVIATIONS: readonly Deviation[] = [
  {
    id: 'connector-detail-wrong-not-found-text',
    spec: 'breaks',
    endpoint: 'cluster.connector.detail',
    description:
      'connector detail of an unknown connector fails with "connector not found" instead of the spec\'s "Connector {name} does not exist."',
    checks: ['error.connector-not-found'],
    caught: true,
    hooks: {
      around: aroundOn('cluster.connector.detail', async (params, next) => {
        try {
          return await next(params);
        } catch (e) {
          if (e instanceof OperationError && /does not exist/.test(e.message)) throw failed('connector not found');
          throw e;
        }
      }),
    },
  },
  {
    id: 'tenant-update-unknown-succeeds',
    spec: 'breaks',
    endpoint: 'cluster.tenant.update',
    description: 'tenant update of a tenant that does not exist answers success',
    checks: ['error.tenant-not-found'],
    caught: true,
    hooks: {
      around: aroundOn('cluster.tenant.update', async (params, next, cx) =>
        cx.cluster.tenants.has(String(params.tenant_name)) ? next(params) : 'success',
      ),
    },
  },
  {
    id: 'config-get-unknown-broker-answers-local',
    spec: 'breaks',
    endpoint: 'cluster.config.get',
    description: "config get with a broker_id no node has answers the local node's configuration instead of an error",
    checks: ['error.unknown-broker-id'],
    caught: true,
    hooks: {
      around: aroundOn('cluster.config.get', (params, next, cx) =>
        params.broker_id !== undefined && !cx.cluster.nodes.get(Number(params.broker_id))
          ? next({ ...params, broker_id: undefined })
          : next(params),
      ),
    },
  },
  {
    id: 'config-set-not-persisted',
    spec: 'breaks',
    endpoint: 'cluster.config.set',
    description: 'config set answers success but the change is never applied',
    checks: ['config.set-get-roundtrip'],
    caught: true,
    hooks: { around: dropWrite('cluster.config.set') },
  },
  {
    id: 'node-leave-online-without-force',
    spec: 'breaks',
    endpoint: 'cluster.node.leave',
    description: 'node leave removes an online node although force was not given',
    checks: ['node-leave.refuses-online-node'],
    tags: ['cluster-status'],
    caught: true,
    hooks: { around: aroundOn('cluster.node.leave', (params, next) => next({ ...params, force: true })) },
  },
  {
    id: 'health-ready-200-not-ready',
    spec: 'breaks',
    endpoint: 'health.ready',
    description: 'readiness probe answers HTTP 200 with status not_ready (status and code disagree)',
    checks: ['health.ready-body'],
    caught: true,
    hooks: {
      around: aroundOn('health.ready', async (params, next) => {
        const out = await next(params);
        if (out instanceof WithStatus) return (out.data as Obj) ?? out;
        return { ...(out as Obj), status: 'not_ready' };
      }),
    },
  },
  {
    id: 'monitor-data-newest-first',
    spec: 'breaks',
    notes: 'notes §11.23, §8.5',
    rule: 'Endpoints, MQTT overview, monitoring, clients, sessions, subscriptions: "Retention is the last hour; the sampling interval is normally 60 seconds; points are ordered by time."',
    endpoint: 'mqtt.monitor.data',
    description: 'monitor data: points come newest first instead of ordered by time',
    finding: 'endpoints.monitor.ordered',
    checks: ['monitor.ordered-by-date'],
    caught: true,
    hooks: { around: aroundOn('mqtt.monitor.data', async (params, next) => [...((await next(params)) as unknown[])].reverse()) },
  },
  {
    id: 'monitor-data-missing-dimension-not-empty',
    spec: 'breaks',
    endpoint: 'mqtt.monitor.data',
    description: "monitor data: a topic series without topic_name answers some topic's series instead of []",
    checks: ['monitor.missing-dimension'],
    caught: true,
    hooks: {
      around: aroundOn('mqtt.monitor.data', async (params, next, cx) => {
        if (!TOPIC_TYPES.test(String(params.data_type)) || params.topic_name) return next(params);
        // The bug: the dimension falls back to "the first topic that has data".
        for (const topic of cx.cluster.topics.all().slice(0, 50)) {
          const points = (await next({ ...params, topic_name: topic.topic_name })) as unknown[];
          if (points.length > 0) return points;
        }
        return next(params);
      }),
    },
  },
  {
    id: 'tenant-create-default-max-topics-5000',
    spec: 'breaks',
    endpoint: 'cluster.tenant.create',
    description: 'tenant create: an omitted max_topics defaults to 5000 instead of 5000000',
    checks: ['tenant.default-quota'],
    caught: true,
    hooks: {
      validation: validationOn('cluster.tenant.create', ({ specs, raw }) => {
        const config = raw.config;
        if (config !== undefined && (config === null || typeof config !== 'object' || Array.isArray(config))) return { specs, raw };
        const given = (config ?? {}) as Obj;
        return { specs, raw: { ...raw, config: { max_topics: 5000, ...given } } };
      }),
    },
  },
  {
    id: 'overview-connector-num-off-by-one',
    spec: 'breaks',
    endpoint: 'mqtt.overview',
    description: 'MQTT overview: connector_num counts one more connector than the connector list holds',
    checks: ['overview.connector_num-matches-list'],
    tags: ['connectors'],
    caught: true,
    hooks: {
      around: aroundOn('mqtt.overview', async (params, next) => {
        const data = (await next(params)) as Obj;
        return { ...data, connector_num: Number(data.connector_num) + 1 };
      }),
    },
  },
  {
    id: 'segment-detail-every-replica-leader',
    spec: 'breaks',
    endpoint: 'storage.segment.detail',
    description: 'segment detail: every replica claims is_leader (the leader flag is not per replica)',
    checks: ['segment.replica-invariants'],
    tags: ['cluster-status'],
    caught: true,
    hooks: {
      around: aroundOn('storage.segment.detail', async (params, next) => {
        const data = (await next(params)) as Obj;
        const replicas = Array.isArray(data.replicas) ? (data.replicas as Obj[]) : [];
        return { ...data, replicas: replicas.map((r) => ({ ...r, is_leader: true })) };
      }),
    },
  },
];
