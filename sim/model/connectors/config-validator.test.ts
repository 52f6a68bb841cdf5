import { describe, expect, it } from 'vitest';
import {
  CONNECTOR_CATALOGUE,
  CONNECTOR_TYPE_IDS,
  type ConfigKeySpec,
  type ConnectorTypeSpec,
} from '../../../contract/core/connector-catalogue.ts';
import { OperationError } from '../errors/operation-error.ts';
import { resolveConnectorType, validateConnectorConfig } from './config-validator.ts';

/**
 * Cases generated from the catalogue data: for every type and key, what the rules say must pass and
 * what must be refused, plus explicit cases for the cross-field rules.
 */

const typeOf = (id: string): ConnectorTypeSpec => CONNECTOR_CATALOGUE.find((t) => t.id === id)!;

function validate(
  type: ConnectorTypeSpec,
  overrides: Record<string, unknown>,
  base: Record<string, unknown> = type.example,
): Record<string, unknown> {
  const config: Record<string, unknown> = { ...base, ...overrides };
  for (const [k, v] of Object.entries(overrides)) if (v === undefined) delete config[k];
  return validateConnectorConfig(type, JSON.stringify(config));
}

function refusal(run: () => unknown): OperationError {
  try {
    run();
  } catch (e) {
    if (e instanceof OperationError) return e;
    throw e;
  }
  throw new Error('expected a refusal, but the config was accepted');
}

function expectRefused(
  type: ConnectorTypeSpec,
  overrides: Record<string, unknown>,
  key: string,
  text?: string,
  base?: Record<string, unknown>,
): void {
  const e = refusal(() => validate(type, overrides, base));
  expect(e.kind).toBe('invalid');
  expect(e.param).toBe(`config.${key}`);
  expect(e.message).toContain(`config.${key}`);
  if (text) expect(e.message).toContain(text);
}

/** Keys whose value decides a cross-field rule: changing them alone may break the example. */
function conditionKeys(type: ConnectorTypeSpec): Set<string> {
  const keys = new Set<string>();
  for (const r of type.rules) if ('when' in r && r.kind !== 'effective-only-when') keys.add(r.when.key);
  return keys;
}

/** A string of exactly `length` characters that satisfies the key's prefix rule. */
function stringOfLength(key: ConfigKeySpec, length: number): string {
  const prefix = key.prefixes?.[0] ?? (key.pattern ? '' : '');
  return prefix + 'a'.repeat(Math.max(0, length - prefix.length));
}

const WRONG_TYPE: Record<ConfigKeySpec['type'], unknown> = {
  string: 42,
  integer: '1',
  bool: 'true',
  array: 'x',
  object: 'x',
  'string-map': { a: 1 },
};

describe('connector catalogue data', () => {
  it('lists the 17 spec types in order with the spec kinds', () => {
    expect(CONNECTOR_CATALOGUE.map((t) => t.id)).toEqual([...CONNECTOR_TYPE_IDS]);
    expect(CONNECTOR_CATALOGUE.map((t) => t.kind)).toEqual([
      'message queue',
      'message queue',
      'message queue',
      'MQTT bridge',
      'key-value store',
      'relational database',
      'relational database',
      'document database',
      'analytical database',
      'wide-column database',
      'search engine',
      'time-series database',
      'time-series database',
      'time-series database',
      'HTTP push',
      'object storage',
      'local file',
    ]);
  });

  it.each(CONNECTOR_CATALOGUE.map((t) => [t.id, t] as const))(
    '%s: defaults obey their own rules, rule keys exist, target and batch keys exist',
    (_id, type) => {
      const names = new Set(type.keys.map((k) => k.name));
      expect(names.size).toBe(type.keys.length);
      expect(names.has(type.targetKey)).toBe(true);
      if (type.messageBatchKey) expect(names.has(type.messageBatchKey)).toBe(true);
      for (const r of type.rules) {
        const ruleKeys = 'keys' in r ? r.keys : 'groups' in r ? r.groups.flat() : [r.key];
        for (const k of [...ruleKeys, ...('when' in r ? [r.when.key] : [])]) expect(names.has(k), `${r.id} names ${k}`).toBe(true);
      }
      for (const k of type.keys) {
        if (k.default === undefined || typeof k.default !== 'number') continue;
        if (k.minimum !== undefined) expect(k.default).toBeGreaterThanOrEqual(k.minimum);
        if (k.maximum !== undefined) expect(k.default).toBeLessThanOrEqual(k.maximum);
      }
      for (const k of type.keys) if (k.enum && k.default !== undefined) expect(k.enum).toContain(k.default);
    },
  );
});

describe('connector_type', () => {
  it('matches case-insensitively and refuses unknown ids naming connector_type', () => {
    expect(resolveConnectorType('KafKa').id).toBe('kafka');
    const e = refusal(() => resolveConnectorType('kafkaa'));
    expect(e.param).toBe('connector_type');
    expect(e.message).toContain('webhook');
  });
});

describe('config text', () => {
  const file = typeOf('file');
  it('refuses text that is not JSON, or JSON that is not an object, naming config', () => {
    const bad = refusal(() => validateConnectorConfig(file, '{"local_file_path":'));
    expect(bad.param).toBe('config');
    expect(bad.message).toContain('config is not valid JSON');
    for (const text of ['[]', '"x"', '12', 'null']) {
      const e = refusal(() => validateConnectorConfig(file, text));
      expect(e.param).toBe('config');
      expect(e.message).toContain('object');
    }
  });

  it('ignores unknown keys and never lets __proto__ through', () => {
    const out = validateConnectorConfig(file, '{"local_file_path":"/tmp/a.log","bogus":1,"__proto__":{"polluted":true}}');
    expect(out).toEqual({ local_file_path: '/tmp/a.log', rotation_strategy: 'none', max_size_gb: 1 });
    expect(Object.keys(out)).not.toContain('bogus');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads JSON null as absent: the default applies, a required key is missing', () => {
    expect(validate(file, { max_size_gb: null }).max_size_gb).toBe(1);
    expectRefused(file, { local_file_path: null }, 'local_file_path', 'is required');
  });
});

describe.each(CONNECTOR_CATALOGUE.map((t) => [t.id, t] as const))('%s config', (_id, type) => {
  it('accepts the minimal example and fills every default, in catalogue order', () => {
    const out = validate(type, {});
    const expected: Record<string, unknown> = {};
    for (const k of type.keys) {
      if (type.example[k.name] !== undefined) expected[k.name] = type.example[k.name];
      else if (k.default !== undefined) expected[k.name] = k.default;
    }
    expect(out).toEqual(expected);
    expect(Object.keys(out)).toEqual(Object.keys(expected));
  });

  const required = type.keys.filter((k) => k.required && k.default === undefined);
  it.each(required.map((k) => [k.name, k] as const))('refuses a missing required key %s', (name) => {
    expectRefused(type, { [name]: undefined }, name, 'is required');
  });

  const nonEmpty = type.keys.filter((k) => k.required && k.type === 'string' && k.minLength === 1);
  it.each(nonEmpty.map((k) => [k.name] as const))('refuses an empty %s', (name) => {
    expectRefused(type, { [name]: '' }, name, 'must not be empty');
  });

  const mayBeEmpty = type.keys.filter((k) => k.required && k.type === 'string' && k.minLength === undefined);
  it.each(mayBeEmpty.map((k) => [k.name] as const))(
    'accepts an empty required %s when the example has it empty, needs it present',
    (name) => {
      if (type.example[name] === '') expect(validate(type, {})[name]).toBe('');
      expectRefused(type, { [name]: undefined }, name, 'is required');
    },
  );

  it.each(type.keys.map((k) => [k.name, k] as const))('refuses a wrong JSON type for %s', (name, key) => {
    expectRefused(type, { [name]: WRONG_TYPE[key.type] }, name, 'must be');
  });

  const ranged = type.keys.filter((k) => k.type === 'integer' && (k.minimum !== undefined || k.maximum !== undefined) && !k.enum);
  it.each(ranged.map((k) => [k.name, k] as const))('holds %s to its inclusive range', (name, key) => {
    if (key.minimum !== undefined) {
      expect(validate(type, { [name]: key.minimum })[name]).toBe(key.minimum);
      expectRefused(type, { [name]: key.minimum - 1 }, name, `(got ${key.minimum - 1})`);
    }
    if (key.maximum !== undefined) {
      expect(validate(type, { [name]: key.maximum })[name]).toBe(key.maximum);
      expectRefused(type, { [name]: key.maximum + 1 }, name, `(got ${key.maximum + 1})`);
    }
    expectRefused(type, { [name]: (key.minimum ?? 1) + 0.5 }, name, 'must be an integer');
  });

  const enums = type.keys.filter((k) => k.enum);
  it.each(enums.map((k) => [k.name, k] as const))('holds %s to its enum', (name, key) => {
    const free = !conditionKeys(type).has(name);
    for (const v of key.enum!) if (free || v === key.default) expect(validate(type, { [name]: v })[name]).toBe(v);
    expectRefused(type, { [name]: key.type === 'integer' ? 9 : 'bogus' }, name, 'must be one of');
  });

  const lengths = type.keys.filter((k) => k.type === 'string' && k.maxLength !== undefined);
  it.each(lengths.map((k) => [k.name, k] as const))('holds %s to its maximum length', (name, key) => {
    expect(validate(type, { [name]: stringOfLength(key, key.maxLength!) })[name]).toHaveLength(key.maxLength!);
    expectRefused(type, { [name]: stringOfLength(key, key.maxLength! + 1) }, name, `at most ${key.maxLength} characters`);
  });

  const prefixed = type.keys.filter((k) => k.prefixes);
  it.each(prefixed.map((k) => [k.name, k] as const))('holds %s to its URL prefixes', (name, key) => {
    for (const p of key.prefixes!) expect(validate(type, { [name]: `${p}host:1234` })[name]).toBe(`${p}host:1234`);
    for (const bad of ['ftp://host:1', 'host:1234', key.prefixes![0], `${key.prefixes![0].toUpperCase()}host:1`]) {
      expectRefused(type, { [name]: bad }, name, `must start with ${key.prefixes!.join(' or ')}`);
    }
  });

  const bools = type.keys.filter((k) => k.type === 'bool' && !conditionKeys(type).has(k.name));
  it.each(bools.map((k) => [k.name] as const))('accepts true and false for %s', (name) => {
    expect(validate(type, { [name]: true })[name]).toBe(true);
    expect(validate(type, { [name]: false })[name]).toBe(false);
  });
});

describe('patterns and formats', () => {
  it('kafka bootstrap_servers is a host:port list', () => {
    const kafka = typeOf('kafka');
    for (const ok of ['a:1', 'kafka-1:9092,kafka-2:9092', '10.0.0.1:9092, 10.0.0.2:9093', '[::1]:9092'])
      expect(validate(kafka, { bootstrap_servers: ok }).bootstrap_servers).toBe(ok);
    for (const bad of ['localhost', 'a:1,', 'a:b', 'a:1,,b:2', ':9092'])
      expectRefused(kafka, { bootstrap_servers: bad }, 'bootstrap_servers', 'host:port');
  });

  it('redis server is a host:port list', () => {
    const redis = typeOf('redis');
    expect(validate(redis, { server: 'r1:26379,r2:26379' }).server).toBe('r1:26379,r2:26379');
    expectRefused(redis, { server: 'redis://r1' }, 'server', 'host:port');
  });

  it('s3 file_extension is letters and digits only', () => {
    const s3 = typeOf('s3');
    expect(validate(s3, { file_extension: 'jsonl2' }).file_extension).toBe('jsonl2');
    for (const bad of ['.json', 'js-on', '', 'j son']) expectRefused(s3, { file_extension: bad }, 'file_extension', 'letters and digits');
  });

  it('file local_file_path must be absolute', () => {
    const file = typeOf('file');
    for (const ok of ['/var/log/x.log', 'C:\\logs\\x.log', 'd:/x.log'])
      expect(validate(file, { local_file_path: ok }).local_file_path).toBe(ok);
    for (const bad of ['x.log', './x.log', 'logs/x.log']) expectRefused(file, { local_file_path: bad }, 'local_file_path', 'absolute path');
  });

  it('file max_size_gb is checked whatever the rotation', () => {
    const file = typeOf('file');
    expect(validate(file, { rotation_strategy: 'daily', max_size_gb: 10 }).max_size_gb).toBe(10);
    expectRefused(file, { rotation_strategy: 'none', max_size_gb: 11 }, 'max_size_gb', 'between 1 and 10');
  });

  it('cassandra nodes is a non-empty array of non-empty strings', () => {
    const cassandra = typeOf('cassandra');
    expect(validate(cassandra, { nodes: ['a', 'b:9042'] }).nodes).toEqual(['a', 'b:9042']);
    expectRefused(cassandra, { nodes: [] }, 'nodes', 'at least 1 element');
    expectRefused(cassandra, { nodes: ['a', 3] }, 'nodes', 'config.nodes[1]');
  });

  it('webhook headers is a map of strings; opentsdb tags_fields an array of strings', () => {
    expect(validate(typeOf('webhook'), { headers: { A: 'b' } }).headers).toEqual({ A: 'b' });
    expectRefused(typeOf('webhook'), { headers: ['a'] }, 'headers', 'values are strings');
    expectRefused(typeOf('webhook'), { headers: { A: 1 } }, 'headers', 'config.headers.A');
    expect(validate(typeOf('opentsdb'), { tags_fields: ['host'] }).tags_fields).toEqual(['host']);
  });

  it('a config of exactly the text limit reaches the key rules; redis command_template of 4096 is accepted by the validator', () => {
    const redis = typeOf('redis');
    expect((validate(redis, { command_template: 'x'.repeat(4096) }).command_template as string).length).toBe(4096);
  });
});

describe('cross-field rules', () => {
  it('pulsar: at most one authentication method; basic needs both keys; oauth is JSON object text', () => {
    const pulsar = typeOf('pulsar');
    expect(validate(pulsar, {}).token).toBeUndefined();
    expect(validate(pulsar, { token: 't' }).token).toBe('t');
    expect(validate(pulsar, { oauth: '{"issuer_url":"https://auth"}' }).oauth).toBe('{"issuer_url":"https://auth"}');
    expect(validate(pulsar, { basic_name: 'u', basic_password: 'p' }).basic_name).toBe('u');
    expectRefused(pulsar, { token: 't', oauth: '{}' }, 'oauth', 'cannot be combined with config.token');
    expectRefused(pulsar, { token: 't', basic_name: 'u', basic_password: 'p' }, 'basic_name', 'cannot be combined');
    expectRefused(pulsar, { basic_name: 'u' }, 'basic_password', 'is required with config.basic_name');
    expectRefused(pulsar, { basic_password: 'p' }, 'basic_name', 'is required with config.basic_password');
    expectRefused(pulsar, { oauth: 'not json' }, 'oauth', 'JSON text of an object');
    expectRefused(pulsar, { oauth: '[1]' }, 'oauth', 'JSON text of an object');
  });

  it('redis: sentinel mode needs sentinel_master_name', () => {
    const redis = typeOf('redis');
    expectRefused(redis, { mode: 'sentinel' }, 'sentinel_master_name', 'is required when config.mode is "sentinel"');
    expectRefused(redis, { mode: 'sentinel', sentinel_master_name: '' }, 'sentinel_master_name', 'must not be empty');
    expect(validate(redis, { mode: 'sentinel', sentinel_master_name: 'mymaster' }).mode).toBe('sentinel');
    expect(validate(redis, { mode: 'cluster' }).mode).toBe('cluster');
  });

  it.each(['mysql', 'postgres'])('%s: upsert needs conflict_columns', (id) => {
    const type = typeOf(id);
    expectRefused(type, { enable_upsert: true }, 'conflict_columns', 'is required when config.enable_upsert is true');
    expect(validate(type, { enable_upsert: true, conflict_columns: 'id' }).enable_upsert).toBe(true);
    expect(validate(type, { enable_upsert: false }).enable_upsert).toBe(false);
  });

  it('mysql: sql_template has exactly 3 ? placeholders', () => {
    const mysql = typeOf('mysql');
    expect(validate(mysql, { sql_template: 'INSERT INTO t (k, p, ts) VALUES (?, ?, ?)' }).sql_template).toContain('?');
    expectRefused(mysql, { sql_template: 'INSERT INTO t (k, p) VALUES (?, ?)' }, 'sql_template', 'exactly 3 "?" placeholders (got 2');
    expectRefused(mysql, { sql_template: 'INSERT INTO t VALUES (?, ?, ?, ?)' }, 'sql_template', '(got 4');
  });

  it('postgres: sql_template uses exactly $1 to $5', () => {
    const pg = typeOf('postgres');
    const ok = 'INSERT INTO t (client_id, topic, ts, payload, data) VALUES ($1, $2, $3, $4, $5)';
    expect(validate(pg, { sql_template: ok }).sql_template).toBe(ok);
    expect(validate(pg, { sql_template: `${ok} ON CONFLICT DO UPDATE SET payload = $4` }).sql_template).toContain('$4');
    expectRefused(pg, { sql_template: 'INSERT INTO t VALUES ($1, $2, $3, $4)' }, 'sql_template', 'missing $5');
    expectRefused(pg, { sql_template: 'INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)' }, 'sql_template', 'unexpected $6');
    expectRefused(pg, { sql_template: 'INSERT INTO t VALUES ($1, $2, $3, $4, $50)' }, 'sql_template', 'missing $5; unexpected $50');
  });

  it('mongodb: replicaset needs replica_set_name', () => {
    const mongo = typeOf('mongodb');
    expectRefused(mongo, { deployment_mode: 'replicaset' }, 'replica_set_name', 'is required when config.deployment_mode is "replicaset"');
    expect(validate(mongo, { deployment_mode: 'replicaset', replica_set_name: 'rs0' }).replica_set_name).toBe('rs0');
    expect(validate(mongo, { deployment_mode: 'sharded' }).deployment_mode).toBe('sharded');
  });

  it('elasticsearch: basic needs username and password, apikey needs api_key', () => {
    const es = typeOf('elasticsearch');
    expectRefused(es, { auth_type: 'basic', password: 'p' }, 'username', 'is required when config.auth_type is "basic"');
    expectRefused(es, { auth_type: 'basic', username: 'u' }, 'password', 'is required');
    expect(validate(es, { auth_type: 'basic', username: 'u', password: 'p' }).auth_type).toBe('basic');
    expectRefused(es, { auth_type: 'apikey' }, 'api_key', 'is required when config.auth_type is "apikey"');
    expect(validate(es, { auth_type: 'apikey', api_key: 'k' }).api_key).toBe('k');
  });

  it('webhook: basic needs username and password, bearer needs bearer_token', () => {
    const hook = typeOf('webhook');
    expectRefused(hook, { auth_type: 'basic', username: 'u' }, 'password', 'is required when config.auth_type is "basic"');
    expect(validate(hook, { auth_type: 'basic', username: 'u', password: 'p' }).username).toBe('u');
    expectRefused(hook, { auth_type: 'bearer' }, 'bearer_token', 'is required when config.auth_type is "bearer"');
    expect(validate(hook, { auth_type: 'bearer', bearer_token: 't' }).bearer_token).toBe('t');
  });

  it('influxdb: v2 fills token/org/bucket and empties database/username/password; v1 the reverse', () => {
    const influx = typeOf('influxdb');
    expect(validate(influx, {}).version).toBe('v2');
    expectRefused(influx, { token: '' }, 'token', 'must not be empty when config.version is "v2"');
    expectRefused(influx, { bucket: '' }, 'bucket', 'must not be empty');
    expectRefused(influx, { database: 'db' }, 'database', 'must be an empty string when config.version is "v2"');
    const v1 = {
      server: 'http://influx:8086',
      measurement: 'm',
      token: '',
      org: '',
      bucket: '',
      database: 'db',
      username: 'u',
      password: 'p',
      version: 'v1',
    };
    expect(validate(influx, {}, v1).version).toBe('v1');
    expectRefused(influx, { username: '' }, 'username', 'must not be empty when config.version is "v1"', v1);
    expectRefused(influx, { org: 'acme' }, 'org', 'must be an empty string when config.version is "v1"', v1);
  });
});
