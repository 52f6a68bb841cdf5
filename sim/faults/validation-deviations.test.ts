import { describe, expect, it } from 'vitest';
import { TwinApps } from '../dialects/robustmq/testing/real-server-test-kit.ts';

describe('influxdb-unused-version-keys-dropped', () => {
  it('accepts a non-empty key of the version not in use and stores it empty; the unbroken app refuses it', async () => {
    const apps = new TwinApps({ workload: 'none', seed: 7 });
    const config = {
      server: 'http://localhost:8086',
      measurement: 'mqtt',
      token: 't0ken',
      org: 'acme',
      bucket: 'mqtt',
      database: 'not-empty',
      username: '',
      password: '',
    };
    const body = {
      tenant: 'default',
      connector_name: 'influx-v2',
      connector_type: 'influxdb',
      topic_name: 'x/#',
      config: JSON.stringify(config),
    };
    const refused = (await apps.plain.post('/api/cluster/connector/create', body)).json;
    expect([refused.code, refused.message]).toEqual([400, expect.stringContaining('database')]);
    const sw = apps.with('influxdb-unused-version-keys-dropped');
    expect((await sw.post('/api/cluster/connector/create', body)).json.code).toBe(0);
    const listed = (await sw.get('/api/cluster/connector/list?tenant=default&connector_name=influx-v2')).json.data.data[0];
    expect(JSON.parse(listed.config)).toMatchObject({ token: 't0ken', database: '' });
    // v1: the v2 keys are the unused ones.
    const v1 = { ...config, version: 'v1', token: 'left-over', org: '', bucket: '', database: 'db', username: 'u', password: 'p' };
    const v1Body = { ...body, connector_name: 'influx-v1', config: JSON.stringify(v1) };
    expect((await apps.plain.post('/api/cluster/connector/create', v1Body)).json.code).toBe(400);
    expect((await sw.post('/api/cluster/connector/create', v1Body)).json.code).toBe(0);
  });
});

describe('system-monitor-watermark-unchecked', () => {
  it('accepts a watermark of 1.5 and stores 1; the unbroken app refuses it', async () => {
    const apps = new TwinApps({ workload: 'none', seed: 7 });
    const body = { config_type: 'MqttSystemMonitor', config: JSON.stringify({ os_cpu_high_watermark: 1.5 }) };
    expect((await apps.plain.post('/api/cluster/config/set', body)).json.code).toBe(400);
    const sw = apps.with('system-monitor-watermark-unchecked');
    expect((await sw.post('/api/cluster/config/set', body)).json.code).toBe(0);
    expect((await sw.get('/api/cluster/config/get')).json.data.mqtt_system_monitor.os_cpu_high_watermark).toBe(100);
  });
});
