/** Bugs in request validation: unenforced limits, enums and required fields; over-strict parsing. */
import { COMMON_LIST_PARAMS } from '../../contract/core/common.ts';
import { invalidParam } from '../model/errors/operation-error.ts';
import type { Deviation } from '../admin-api/hooks/deviation.ts';
import { aroundOn, changeSpec, responseOn, rewriteJson, validationOn } from '../admin-api/hooks/hook-helpers.ts';

export const VALIDATION_DEVIATIONS: readonly Deviation[] = [
  {
    id: 'tenant-create-name-length-unenforced',
    spec: 'breaks',
    endpoint: 'cluster.tenant.create',
    description: 'tenant create accepts a tenant_name longer than 128 characters',
    checks: ['limit.tenant_name.length-129'],
    caught: true,
    hooks: {
      validation: validationOn('cluster.tenant.create', ({ specs, raw }) => ({
        specs: changeSpec(specs, 'tenant_name', ({ maxLength: _max, ...p }) => p),
        raw,
      })),
    },
  },
  {
    id: 'auto-subscribe-create-name-truncated',
    spec: 'breaks',
    endpoint: 'mqtt.auto-subscribe.create',
    description: 'auto-subscribe create silently cuts a name longer than 256 characters to 256 instead of refusing it',
    checks: ['limit.name.length-257'],
    caught: true,
    hooks: {
      validation: validationOn('mqtt.auto-subscribe.create', ({ specs, raw }) => {
        const name = raw.name;
        return typeof name === 'string' && [...name].length > 256
          ? { specs, raw: { ...raw, name: [...name].slice(0, 256).join('') } }
          : { specs, raw };
      }),
    },
  },
  {
    id: 'acl-create-action-enum-unenforced',
    spec: 'breaks',
    endpoint: 'cluster.acl.create',
    description: 'ACL create accepts an action outside Publish/Subscribe/All (e.g. "Foo") and stores it',
    checks: ['enum.action'],
    caught: true,
    hooks: {
      validation: validationOn('cluster.acl.create', ({ specs, raw }) => ({
        specs: changeSpec(specs, 'action', ({ enum: _values, ...p }) => p),
        raw,
      })),
    },
  },
  {
    id: 'user-create-password-not-required',
    spec: 'breaks',
    endpoint: 'cluster.user.create',
    description: 'user create without a password is accepted (the password defaults to empty)',
    checks: ['required.password'],
    caught: true,
    hooks: {
      validation: validationOn('cluster.user.create', ({ specs, raw }) => ({
        specs: changeSpec(specs, 'password', ({ required: _r, minLength: _min, ...p }) => ({ ...p, default: '' })),
        raw,
      })),
    },
  },
  {
    id: 'topic-list-unknown-query-keys-refused',
    spec: 'breaks',
    endpoint: 'cluster.topic.list',
    description: 'topic list refuses query keys it does not know with a 400 instead of ignoring them',
    checks: ['unknown-fields-ignored'],
    caught: true,
    hooks: {
      validation: validationOn('cluster.topic.list', ({ specs, raw }) => {
        const known = new Set([...specs, ...COMMON_LIST_PARAMS].map((p) => p.name));
        const unknown = Object.keys(raw).find((k) => !known.has(k));
        if (unknown !== undefined) throw invalidParam(unknown, `unknown query parameter '${unknown}'`);
        return { specs, raw };
      }),
    },
  },
  {
    id: 'acl-create-refusals-name-no-parameter',
    spec: 'breaks',
    endpoint: 'cluster.acl.create',
    description: 'ACL create answers every invalid request with "invalid request", never naming the parameter',
    checks: ['required.*.names-param', 'limit.*.names-param'],
    caught: true,
    hooks: {
      response: responseOn('cluster.acl.create', (res) =>
        res.status === 400
          ? rewriteJson(res, (body) =>
              'message' in body ? { ...body, message: 'invalid request' } : { ...body, error: 'invalid request' },
            )
          : res,
      ),
    },
  },
  {
    id: 'blacklist-create-end-time-not-required',
    spec: 'breaks',
    endpoint: 'cluster.blacklist.create',
    description: 'blacklist create without end_time is accepted (a ban without end)',
    checks: ['required.end_time'],
    caught: true,
    hooks: {
      validation: validationOn('cluster.blacklist.create', ({ specs, raw }) => ({
        specs: changeSpec(specs, 'end_time', ({ required: _r, ...p }) => ({ ...p, default: 4_102_444_800 })),
        raw,
      })),
    },
  },
  {
    id: 'system-monitor-watermark-unchecked',
    spec: 'breaks',
    endpoint: 'cluster.config.set',
    description: 'config set of MqttSystemMonitor accepts a watermark above 1 (stored as 1) instead of refusing it',
    checks: ['config.invalid.MqttSystemMonitor.os_cpu_high_watermark', 'config.invalid.MqttSystemMonitor.os_memory_high_watermark'],
    caught: true,
    hooks: {
      around: aroundOn('cluster.config.set', (params, next) =>
        next(params.config_type === 'MqttSystemMonitor' ? clampWatermarks(params) : params),
      ),
    },
  },
  {
    id: 'influxdb-unused-version-keys-dropped',
    spec: 'allows',
    rule: 'Connector catalogue: "For version v2 fill token, org, bucket and pass empty strings for database, username, password; for v1 the reverse." instructs clients; what a server does with a non-empty key of the other version is not said',
    endpoint: 'cluster.connector.create',
    description:
      'influxdb connector create accepts a non-empty key of the version not in use (database with v2, token with v1) and drops it, instead of refusing it',
    checks: [],
    caught: false,
    reason:
      "allowed by the spec: its sentence tells clients what to send, and states no refusal; only the project's decision to refuse such a key (INFO) notices",
    hooks: {
      validation: validationOn('cluster.connector.create', ({ specs, raw }) => ({ specs, raw: withUnusedInfluxKeysEmpty(raw) })),
    },
  },
];

/** A MqttSystemMonitor set with its watermarks cut into 0..1, as a server that never checks their range stores them. */
function clampWatermarks(params: Record<string, unknown>): Record<string, unknown> {
  if (typeof params.config !== 'string') return params;
  let config: unknown;
  try {
    config = JSON.parse(params.config);
  } catch {
    return params;
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return params;
  const clamped = Object.fromEntries(
    Object.entries(config).map(([k, v]) => [k, /_high_watermark$/.test(k) && typeof v === 'number' ? Math.min(1, Math.max(0, v)) : v]),
  );
  return { ...params, config: JSON.stringify(clamped) };
}

/** The keys an influxdb config leaves unused with each version (catalogue: "for v1 the reverse"). */
const INFLUX_UNUSED: Readonly<Record<string, readonly string[]>> = {
  v2: ['database', 'username', 'password'],
  v1: ['token', 'org', 'bucket'],
};

/** An influxdb create's config with the keys of the version not in use emptied, as a server ignoring them stores it. */
function withUnusedInfluxKeysEmpty(raw: Record<string, unknown>): Record<string, unknown> {
  if (typeof raw.connector_type !== 'string' || raw.connector_type.toLowerCase() !== 'influxdb' || typeof raw.config !== 'string')
    return raw;
  let config: unknown;
  try {
    config = JSON.parse(raw.config);
  } catch {
    return raw;
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return raw;
  const fields = config as Record<string, unknown>;
  const unused = INFLUX_UNUSED[typeof fields.version === 'string' ? fields.version : 'v2'] ?? [];
  const emptied = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, unused.includes(k) && typeof v === 'string' ? '' : v]));
  return { ...raw, config: JSON.stringify(emptied) };
}
