import { refuse } from './answers.ts';
import type { Body } from './rules.ts';

/**
 * The spec's connector catalogue as rules on a type's `config` keys: the keys it requires ("req";
 * present, possibly empty: some are empty strings when unused), the ranges, value lists, URL schemes
 * and lengths it gives, and the rules that tie keys together. Ranges the spec does not give (ports,
 * counts) are not checked.
 */

interface KeyRule {
  range?: [number, number];
  oneOf?: readonly (string | number)[];
  schemes?: readonly string[];
  max?: number;
  pattern?: RegExp;
}

interface TypeRules {
  req: readonly string[];
  keys?: Readonly<Record<string, KeyRule>>;
  /** Rules across keys. */
  also?: (c: Body) => void;
}

const HTTP = ['http://', 'https://'];
const secs300 = { range: [1, 300] } as const satisfies KeyRule;

const given = (c: Body, k: string) => c[k] !== undefined && c[k] !== null;
const needs = (c: Body, when: boolean, keys: readonly string[], why: string) => {
  const missing = keys.find((k) => !given(c, k) || c[k] === '');
  if (when && missing) refuse(`config.${missing} is required ${why}`);
};

const relational = (placeholders: (t: string) => boolean, form: string): TypeRules => ({
  req: ['host', 'database', 'username', 'password', 'table'],
  keys: {
    pool_size: { range: [1, 1000] },
    connect_timeout_secs: secs300,
    acquire_timeout_secs: secs300,
    idle_timeout_secs: { range: [0, 3600] },
    max_lifetime_secs: { range: [0, 7200] },
    batch_size: { range: [1, 10000] },
  },
  also: (c) => {
    needs(c, c.enable_upsert === true, ['conflict_columns'], 'with enable_upsert');
    if (typeof c.sql_template === 'string' && !placeholders(c.sql_template)) refuse(`config.sql_template needs ${form}`);
  },
});

const count = (text: string, s: string) => text.split(s).length - 1;

export const CATALOGUE: Readonly<Record<string, TypeRules>> = {
  kafka: {
    req: ['bootstrap_servers', 'topic'],
    keys: {
      key: { max: 256 },
      compression_type: { oneOf: ['none', 'gzip', 'snappy', 'lz4', 'zstd'] },
      batch_size: { range: [1, 1048576] },
      linger_ms: { range: [0, 60000] },
      acks: { oneOf: ['0', '1', 'all'] },
      retries: { range: [0, 100] },
      message_timeout_ms: { range: [1000, 300000] },
      cleanup_timeout_secs: { range: [0, 300] },
    },
  },
  pulsar: {
    req: ['server', 'topic'],
    keys: {
      server: { schemes: ['pulsar://', 'pulsar+ssl://'] },
      connection_timeout_secs: secs300,
      operation_timeout_secs: secs300,
      send_timeout_secs: secs300,
      batch_size: { range: [1, 10000] },
      max_pending_messages: { range: [1, 100000] },
      compression: { oneOf: ['none', 'lz4', 'zlib', 'zstd', 'snappy'] },
    },
    also: (c) => {
      const ways = [given(c, 'token'), given(c, 'oauth'), given(c, 'basic_name') || given(c, 'basic_password')];
      if (ways.filter(Boolean).length > 1) refuse('config: pulsar authentication is one of token, oauth or basic_name with basic_password');
      needs(c, given(c, 'basic_name') || given(c, 'basic_password'), ['basic_name', 'basic_password'], 'for basic authentication');
    },
  },
  rabbitmq: {
    req: ['server', 'username', 'password', 'exchange'],
    keys: {
      delivery_mode: { oneOf: ['NonPersistent', 'Persistent'] },
      connection_timeout_secs: secs300,
      heartbeat_secs: { range: [0, 300] },
      frame_max: { range: [4096, 1048576] },
      batch_size: { range: [1, 10000] },
      confirm_timeout_secs: secs300,
    },
  },
  mqtt: {
    req: ['server'],
    keys: {
      server: { schemes: ['mqtt://', 'mqtts://'] },
      client_id_prefix: { max: 64 },
      protocol_version: { oneOf: ['v3', 'v4', 'v5'] },
      keepalive_secs: { range: [1, 65535] },
      connect_timeout_secs: secs300,
      qos: { oneOf: [0, 1, 2] },
      max_retries: { range: [0, 10] },
    },
  },
  redis: {
    req: ['server', 'command_template'],
    keys: {
      command_template: { max: 4096 },
      mode: { oneOf: ['single', 'cluster', 'sentinel'] },
      database: { range: [0, 15] },
      pool_size: { range: [1, 100] },
    },
    also: (c) => needs(c, c.mode === 'sentinel', ['sentinel_master_name'], 'in sentinel mode'),
  },
  mysql: relational((t) => count(t, '?') === 3, 'exactly 3 ? placeholders'),
  postgres: relational((t) => [1, 2, 3, 4, 5].every((i) => t.includes(`$${i}`)), 'the placeholders $1 to $5'),
  mongodb: {
    req: ['host', 'database', 'collection'],
    keys: {
      deployment_mode: { oneOf: ['single', 'replicaset', 'sharded'] },
      max_pool_size: { range: [1, 1000] },
      connect_timeout_secs: secs300,
      server_selection_timeout_secs: secs300,
      socket_timeout_secs: { range: [1, 600] },
      batch_size: { range: [1, 10000] },
      w: { oneOf: ['0', '1', 'majority'] },
    },
    also: (c) => needs(c, c.deployment_mode === 'replicaset', ['replica_set_name'], 'for a replicaset'),
  },
  clickhouse: { req: ['url', 'database', 'table'], keys: { url: { schemes: HTTP }, pool_size: { range: [1, 64] }, timeout_secs: secs300 } },
  cassandra: { req: ['nodes', 'keyspace', 'table'], keys: { timeout_secs: secs300 } },
  elasticsearch: {
    req: ['url', 'index'],
    keys: { auth_type: { oneOf: ['none', 'basic', 'apikey'] }, timeout_secs: secs300, max_retries: { range: [0, 10] } },
    also: (c) => {
      needs(c, c.auth_type === 'basic', ['username', 'password'], 'for basic authentication');
      needs(c, c.auth_type === 'apikey', ['api_key'], 'for apikey authentication');
    },
  },
  greptime: { req: ['server_addr', 'database', 'user', 'password'] },
  influxdb: {
    req: ['server', 'measurement', 'token', 'org', 'bucket', 'database', 'username', 'password'],
    keys: {
      server: { schemes: HTTP },
      version: { oneOf: ['v1', 'v2'] },
      precision: { oneOf: ['ns', 'us', 'ms', 's'] },
      timeout_secs: secs300,
    },
    also: (c) => {
      const unused = c.version === 'v1' ? ['token', 'org', 'bucket'] : ['database', 'username', 'password'];
      const filled = unused.find((k) => c[k] !== '');
      if (filled) refuse(`config.${filled} must be an empty string with version ${String(c.version ?? 'v2')}`);
    },
  },
  opentsdb: { req: ['server'], keys: { server: { schemes: HTTP }, timeout_secs: secs300, max_retries: { range: [0, 10] } } },
  webhook: {
    req: ['url'],
    keys: {
      url: { schemes: HTTP, max: 2048 },
      method: { oneOf: ['post', 'put'] },
      timeout_ms: { range: [1, 60000] },
      auth_type: { oneOf: ['none', 'basic', 'bearer'] },
    },
    also: (c) => {
      needs(c, c.auth_type === 'basic', ['username', 'password'], 'for basic authentication');
      needs(c, c.auth_type === 'bearer', ['bearer_token'], 'for bearer authentication');
    },
  },
  s3: {
    req: ['bucket', 'region', 'access_key_id', 'secret_access_key', 'session_token'],
    keys: { file_extension: { pattern: /^[A-Za-z0-9]+$/ } },
  },
  file: {
    req: ['local_file_path'],
    keys: { rotation_strategy: { oneOf: ['none', 'size', 'hourly', 'daily'] }, max_size_gb: { range: [1, 10] } },
  },
};

function checkKey(name: string, rule: KeyRule, v: unknown): void {
  const key = `config.${name}`;
  if (rule.range) {
    const [min, max] = rule.range;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) refuse(`${key} must be an integer from ${min} to ${max}`);
  }
  if (rule.oneOf && !rule.oneOf.includes(v as string | number)) refuse(`${key} must be one of ${rule.oneOf.join(', ')}`);
  if (rule.schemes || rule.max !== undefined || rule.pattern) {
    if (typeof v !== 'string') refuse(`${key} must be a string`);
    if (rule.schemes && !rule.schemes.some((s) => v.startsWith(s))) refuse(`${key} must start with ${rule.schemes.join(' or ')}`);
    if (rule.max !== undefined && [...v].length > rule.max) refuse(`${key} must be at most ${rule.max} characters`);
    if (rule.pattern && !rule.pattern.test(v)) refuse(`${key} must be letters and digits only`);
  }
}

/** Refuses a config breaking a rule of its type. */
export function checkTypeConfig(type: string, c: Body): void {
  const rules = CATALOGUE[type];
  const missing = rules.req.find((k) => !given(c, k));
  if (missing) refuse(`config.${missing} is required for a ${type} connector`);
  for (const [k, rule] of Object.entries(rules.keys ?? {})) if (given(c, k)) checkKey(k, rule, c[k]);
  rules.also?.(c);
}
