import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { setConfig } from './testing/set-config.ts';

describe('system alarms', () => {
  it('records an alarm per node and sample above the watermark, only while enabled', async () => {
    const sim = new InProcessSim({ workload: 'none', nodes: 3, seed: 5 });
    sim.advance(600_000);
    expect((await sim.get('/api/mqtt/system-alarm/list')).json.data.total_count).toBe(0);

    await setConfig(sim, 'MqttSystemMonitor', { enable: true, os_cpu_high_watermark: 0.01, os_memory_high_watermark: 0.99 });
    sim.advance(120_000);
    const list = (await sim.get('/api/mqtt/system-alarm/list')).json.data;
    expect(list.total_count).toBe(2); // node 1 (the answering node), two samples
    for (const alarm of list.data) {
      expect(alarm.name).toBe('HighCpuUsage');
      expect(alarm.message).toMatch(/^HighCpuUsage is \d+(\.\d+)?%, but config is 1%$/);
      expect(Number.isInteger(alarm.create_time)).toBe(true);
    }
    expect((await sim.get('/api/mqtt/system-alarm/list', { nodeId: 2 })).json.data.total_count).toBe(2);
    // Each alarm is also published on the $SYS alarm topic.
    expect(sim.cluster.topics.get('default', '$SYS/brokers/alarms/alert')).toBeDefined();

    await setConfig(sim, 'MqttSystemMonitor', { os_cpu_high_watermark: 1, os_memory_high_watermark: 0.01 });
    sim.advance(60_000);
    const after = (await sim.get('/api/mqtt/system-alarm/list?sort_field=create_time&sort_by=desc&limit=1')).json.data.data[0];
    expect(after.name).toBe('HighMemoryUsage');
    await setConfig(sim, 'MqttSystemMonitor', { enable: false });
    sim.advance(300_000);
    expect((await sim.get('/api/mqtt/system-alarm/list')).json.data.total_count).toBe(3);
  });
});
