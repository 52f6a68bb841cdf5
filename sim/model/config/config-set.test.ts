import { describe, expect, it } from 'vitest';
import { CONFIG_TYPES, type ConfigFieldSpec, type ConfigTypeSpec } from '../../../contract/core/config-types.ts';
import { InProcessSim } from '../../admin-api/in-process-client.ts';

/** One leaf field of a section, with its path inside `config` (quota fields are nested). */
interface Leaf {
  section: ConfigTypeSpec;
  field: ConfigFieldSpec;
  /** e.g. ['cluster', 'max_topics'] */
  path: string[];
}

function leaves(section: ConfigTypeSpec): Leaf[] {
  const out: Leaf[] = [];
  const walk = (fields: readonly ConfigFieldSpec[], prefix: string[]) => {
    for (const f of fields) {
      if (f.properties) walk(f.properties, [...prefix, f.name]);
      else out.push({ section, field: f, path: [...prefix, f.name] });
    }
  };
  walk(section.fields, []);
  return out;
}

const ALL_LEAVES = CONFIG_TYPES.flatMap(leaves);

/** `{a: {b: value}}` for path ['a', 'b']. */
function nest(path: string[], value: unknown): Record<string, unknown> {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

function stored(sim: InProcessSim, leaf: Leaf): unknown {
  let v: any = sim.cluster.config.current()[leaf.section.configType];
  for (const k of leaf.path) v = v[k];
  return v;
}

const TYPE_MAX: Record<string, number> = { u8: 255, u16: 65_535, u32: 4_294_967_295, u64: Number.MAX_SAFE_INTEGER };

interface Case {
  value: unknown;
  /** Stored value expected after an accepted set. */
  expect?: unknown;
}

/** Values at and just past the boundaries of a field's rule, derived from the contract data. */
function casesOf(field: ConfigFieldSpec): { accepted: Case[]; refused: unknown[] } {
  if (field.type === 'bool') return { accepted: [{ value: true }, { value: false }], refused: ['true', 1, 'yes'] };
  if (field.type === 'f32') {
    const min = field.minimum!;
    const max = field.maximum!;
    return { accepted: [{ value: min }, { value: max }, { value: 0.55 }], refused: [min - 0.01, max + 0.01, '0.5', true] };
  }
  if (field.enum) {
    const accepted: Case[] = [
      ...field.setValues!.map((v) => ({ value: v, expect: v })),
      ...Object.entries(field.fromReadNames!).map(([read, set]) => ({ value: read, expect: set })),
    ];
    return { accepted, refused: ['Bogus', String(field.setValues![0]).toLowerCase(), 1] };
  }
  if (field.type === 'string') {
    return { accepted: [{ value: 'x' }, { value: 'd'.repeat(field.maxLength!) }], refused: ['', 'd'.repeat(field.maxLength! + 1), 5] };
  }
  const max = TYPE_MAX[field.type];
  return { accepted: [{ value: 0 }, { value: max }], refused: [-1, max + 1, '1', 1.5, true] };
}

async function set(sim: InProcessSim, config_type: string, config: unknown) {
  sim.advance(25); // stay under max_admin_http_uri_rate (50 per second per path)
  return sim.post('/api/cluster/config/set', { config_type, config: typeof config === 'string' ? config : JSON.stringify(config) });
}

describe('config set: field rules (every field, from the contract data)', () => {
  it('covers every field of the eight sections', () => {
    expect(CONFIG_TYPES.map((t) => t.configType)).toEqual([
      'MqttSlowSubscribeConfig',
      'MqttFlappingDetect',
      'MqttProtocol',
      'MqttOfflineMessage',
      'MqttSystemMonitor',
      'MqttSchema',
      'MqttLimit',
      'ClusterLimit',
    ]);
    expect(ALL_LEAVES.length).toBe(3 + 4 + 8 + 3 + 4 + 5 + 10 + 3);
  });

  for (const leaf of ALL_LEAVES) {
    const name = `config.${leaf.path.join('.')}`;
    it(`${leaf.section.configType} ${name}: boundaries accepted, violations refused with 400 naming ${name}`, async () => {
      const sim = new InProcessSim({ nodes: 1 });
      const { accepted, refused } = casesOf(leaf.field);
      for (const c of accepted) {
        const res = await set(sim, leaf.section.configType, nest(leaf.path, c.value));
        expect(res.json, `accept ${JSON.stringify(c.value)}`).toEqual({ code: 0, message: 'success', data: 'success' });
        expect(stored(sim, leaf)).toEqual(c.expect ?? c.value);
      }
      const before = stored(sim, leaf);
      for (const value of refused) {
        const res = await set(sim, leaf.section.configType, nest(leaf.path, value));
        expect(res.status, `refuse ${JSON.stringify(value)}`).toBe(400);
        expect(res.json.code).toBe(400);
        expect(res.json.message).toContain(`'${name}'`);
        expect(stored(sim, leaf)).toEqual(before);
      }
    });
  }

  it('states the rule broken: type, range and enum', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    expect((await set(sim, 'MqttProtocol', { receive_max: 65_536 })).json.message).toMatch(/unsigned 16-bit integer between 0 and 65535/);
    expect((await set(sim, 'MqttSystemMonitor', { os_memory_high_watermark: -0.1 })).json.message).toMatch(/at least 0/);
    expect((await set(sim, 'MqttFlappingDetect', { enable: 'yes' })).json.message).toMatch(/true or false/);
    const badEnum = (await set(sim, 'MqttSchema', { strategy: 'Loose' })).json.message;
    for (const v of ['Forward', 'Strict', 'ALL', 'Any']) expect(badEnum).toContain(v);
  });
});

describe('config set: request-level checks', () => {
  it('refuses an unknown config_type with 400 naming config_type and listing the allowed values', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    const res = await set(sim, 'MetaRuntime', {});
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('config_type');
    for (const t of CONFIG_TYPES) expect(res.json.message).toContain(t.configType);
  });

  it('refuses config that is not JSON object text with 400 naming config', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    for (const text of ['{not json', '', '[1,2]', '42', 'null', '"text"']) {
      const res = await set(sim, 'ClusterLimit', text);
      expect(res.status, text).toBe(400);
      expect(res.json.message).toContain("'config'");
    }
    sim.advance(25);
    const objectNotText = await sim.post('/api/cluster/config/set', {
      config_type: 'ClusterLimit',
      config: { max_admin_http_uri_rate: 5 },
    });
    expect(objectNotText.status).toBe(400);
    expect(objectNotText.json.message).toContain('config');
    sim.advance(25);
    const missing = await sim.post('/api/cluster/config/set', { config_type: 'ClusterLimit' });
    expect(missing.status).toBe(400);
    expect(missing.json.message).toContain('config');
  });

  it('accepts the alias FlappingDetect for MqttFlappingDetect', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    expect((await set(sim, 'FlappingDetect', { enable: true, ban_time: 42 })).json.code).toBe(0);
    expect(sim.cluster.config.current().MqttFlappingDetect).toMatchObject({ enable: true, ban_time: 42, window_time: 60 });
  });

  it('a partial set keeps the other fields (null = omitted); unknown fields are ignored; partial quotas merge', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    await set(sim, 'MqttProtocol', { receive_max: 10, unknown_field: 'ignored', topic_alias_max: null });
    expect(sim.cluster.config.current().MqttProtocol).toEqual({
      max_session_expiry_interval: 2_592_000,
      default_session_expiry_interval: 3600,
      topic_alias_max: 65_535,
      max_qos_flight_message: 2,
      max_packet_size: 10_485_760,
      receive_max: 10,
      max_message_expiry_interval: 86_400,
      client_pkid_persistent: false,
    });
    expect('unknown_field' in sim.cluster.config.current().MqttProtocol).toBe(false);
    await set(sim, 'MqttLimit', { tenant: { max_topics: 7 } });
    await set(sim, 'MqttLimit', { cluster: { max_sessions: 9 } });
    expect(sim.cluster.config.current().MqttLimit).toEqual({
      cluster: {
        max_connections_per_node: 10_000_000,
        max_connection_rate: 10_000,
        max_topics: 5_000_000,
        max_sessions: 9,
        max_publish_rate: 10_000,
      },
      tenant: {
        max_connections_per_node: 10_000_000,
        max_connection_rate: 10_000,
        max_topics: 7,
        max_sessions: 50_000_000,
        max_publish_rate: 10_000,
      },
    });
    expect((await set(sim, 'MqttLimit', { tenant: 5 })).json.message).toContain("'config.tenant'");
  });

  it('a rejected set changes nothing, not even its valid fields', async () => {
    const sim = new InProcessSim({ nodes: 1 });
    const before = sim.cluster.config.snapshot();
    const res = await set(sim, 'MqttFlappingDetect', { enable: true, window_time: 10, ban_time: -5 });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain("'config.ban_time'");
    expect(sim.cluster.config.snapshot()).toEqual(before);
    const quota = await set(sim, 'MqttLimit', { cluster: { max_topics: 1 }, tenant: { max_publish_rate: 4_294_967_296 } });
    expect(quota.json.message).toContain("'config.tenant.max_publish_rate'");
    expect(sim.cluster.config.snapshot()).toEqual(before);
    expect(sim.cluster.engine.trace.tail(1000).filter((e) => e.kind === 'config.set')).toEqual([]);
  });
});
