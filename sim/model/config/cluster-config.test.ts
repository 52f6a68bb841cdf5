import { describe, expect, it } from 'vitest';
import { OperationError } from '../errors/operation-error.ts';
import { Cluster } from '../cluster/cluster.ts';
import type { ConfigChange } from './cluster-config.ts';

const started = (): Cluster => new Cluster({ seed: 7, nodes: 1 }).start();

describe('ClusterConfig (model)', () => {
  it('starts at the spec defaults', () => {
    const c = started().config.current();
    expect(c.MqttSlowSubscribeConfig).toEqual({ enable: false, record_time: 1000, delay_type: 'CreateTime' });
    expect(c.MqttFlappingDetect).toEqual({ enable: false, window_time: 60, max_client_connections: 5, ban_time: 300 });
    expect(c.MqttOfflineMessage).toEqual({ enable: false, expire_ms: 86_400_000, max_messages_num: 1000 });
    expect(c.MqttSystemMonitor).toEqual({
      enable: false,
      os_cpu_high_watermark: 0.7,
      os_memory_high_watermark: 0.8,
      system_topic_interval_ms: 60_000,
    });
    expect(c.MqttSchema).toEqual({
      enable: false,
      strategy: 'Forward',
      failed_operation: 'Disconnect',
      echo_log: false,
      log_level: 'info',
    });
    expect(c.ClusterLimit).toEqual({
      max_network_connection: 100_000_000,
      max_network_connection_rate: 10_000,
      max_admin_http_uri_rate: 50,
    });
    const quota = {
      max_connections_per_node: 10_000_000,
      max_connection_rate: 10_000,
      max_topics: 5_000_000,
      max_sessions: 50_000_000,
      max_publish_rate: 10_000,
    };
    expect(c.MqttLimit).toEqual({ cluster: quota, tenant: quota });
  });

  it('current() is live and read-only: a held reference sees a set, assignments throw', () => {
    const cluster = started();
    const held = cluster.config.current();
    cluster.config.set('ClusterLimit', { max_admin_http_uri_rate: 3 });
    expect(held.ClusterLimit.max_admin_http_uri_rate).toBe(3);
    expect(() => {
      held.ClusterLimit.max_admin_http_uri_rate = 9;
    }).toThrow(TypeError);
    expect(() => {
      (held as any).ClusterLimit = {};
    }).toThrow(TypeError);
    expect(() => {
      held.MqttLimit.tenant.max_topics = 1;
    }).toThrow(TypeError);
    expect(cluster.config.current().ClusterLimit.max_admin_http_uri_rate).toBe(3);
  });

  it('set() validates like the API and names config.<field>', () => {
    const cluster = started();
    let error: unknown;
    try {
      cluster.config.set('MqttProtocol', { topic_alias_max: 70_000 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OperationError);
    expect((error as OperationError).kind).toBe('invalid');
    expect((error as OperationError).param).toBe('config.topic_alias_max');
    expect(() => cluster.config.setFromText('Nope', '{}')).toThrow(/config_type/);
    expect(() => cluster.config.setFromText('MqttSchema', '{')).toThrow(/'config'/);
  });

  it('stores read-view enum names as their set-form value', () => {
    const cluster = started();
    const set = (t: 'MqttSlowSubscribeConfig' | 'MqttSchema', text: string) => cluster.config.setFromText(t, text);
    set('MqttSlowSubscribeConfig', '{"delay_type":"Whole"}');
    expect(cluster.config.current().MqttSlowSubscribeConfig.delay_type).toBe('CreateTime');
    set('MqttSlowSubscribeConfig', '{"delay_type":"Internal"}');
    expect(cluster.config.current().MqttSlowSubscribeConfig.delay_type).toBe('PublishTime');
    set('MqttSchema', '{"strategy":"ALL","failed_operation":"Discard"}');
    expect(cluster.config.current().MqttSchema).toMatchObject({ strategy: 'Strict', failed_operation: 'Disconnect' });
    set('MqttSchema', '{"strategy":"Any","failed_operation":"Ignore"}');
    expect(cluster.config.current().MqttSchema).toMatchObject({ strategy: 'Forward', failed_operation: 'Ignore' });
  });

  it('tells listeners about each change, after it is visible; unsubscribe stops it', () => {
    const cluster = started();
    const seen: Array<ConfigChange & { visible: boolean }> = [];
    const off = cluster.config.onChange((change) => {
      seen.push({ ...change, visible: cluster.config.current().MqttFlappingDetect === change.current });
    });
    cluster.config.set('MqttFlappingDetect', { enable: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      configType: 'MqttFlappingDetect',
      previous: { enable: false },
      current: { enable: true, window_time: 60 },
      visible: true,
    });
    expect(() => cluster.config.set('MqttFlappingDetect', { window_time: -1 })).toThrow();
    expect(seen).toHaveLength(1); // a refused set is no change
    off();
    cluster.config.set('MqttFlappingDetect', { enable: false });
    expect(seen).toHaveLength(1);
  });

  it('snapshot() and restore() round-trip, validate, and notify only changed sections', () => {
    const a = started();
    a.config.set('MqttLimit', { tenant: { max_topics: 3 } });
    a.config.set('MqttSystemMonitor', { enable: true, os_cpu_high_watermark: 0.25 });
    const snap = JSON.parse(JSON.stringify(a.config.snapshot()));

    const b = started();
    const changed: string[] = [];
    b.config.onChange((c) => changed.push(c.configType));
    b.config.restore(snap);
    expect(b.config.snapshot()).toEqual(a.config.snapshot());
    expect(changed).toEqual(['MqttSystemMonitor', 'MqttLimit']);
    expect(b.engine.trace.tail(5).at(-1)).toMatchObject({
      kind: 'config.restore',
      detail: { changed: ['MqttSystemMonitor', 'MqttLimit'] },
    });

    const before = b.config.snapshot();
    const bad = structuredClone(snap);
    bad.sections.ClusterLimit.max_admin_http_uri_rate = -1;
    expect(() => b.config.restore(bad)).toThrow(/config.max_admin_http_uri_rate/);
    expect(b.config.snapshot()).toEqual(before);
    expect(() => b.config.restore({ version: 2 } as any)).toThrow(/snapshot/);

    // A snapshot missing a section or a field (older durable state) loads with defaults for it.
    const partial = { version: 1 as const, sections: { MqttFlappingDetect: { enable: true } } as any };
    b.config.restore(partial);
    expect(b.config.current().MqttFlappingDetect).toEqual({ enable: true, window_time: 60, max_client_connections: 5, ban_time: 300 });
    expect(b.config.current().MqttLimit.tenant.max_topics).toBe(5_000_000);
  });

  it('records every change in the trace, deterministically', () => {
    const run = () => {
      const cluster = started();
      cluster.config.set('ClusterLimit', { max_network_connection: 12 });
      cluster.config.setFromText('MqttSchema', '{"strategy":"ALL"}');
      try {
        cluster.config.setFromText('MqttSchema', '{"strategy":"nope"}');
      } catch {
        /* refused: not recorded */
      }
      return cluster.engine.trace;
    };
    const first = run();
    const second = run();
    expect(first.hash).toBe(second.hash);
    expect(
      first
        .tail(1000)
        .filter((e) => e.kind === 'config.set')
        .map((e) => e.detail),
    ).toEqual([
      {
        config_type: 'ClusterLimit',
        config: { max_network_connection: 12, max_network_connection_rate: 10_000, max_admin_http_uri_rate: 50 },
      },
      {
        config_type: 'MqttSchema',
        config: { enable: false, strategy: 'Strict', failed_operation: 'Disconnect', echo_log: false, log_level: 'info' },
      },
    ]);
  });
});
