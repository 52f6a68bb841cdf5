import { describe, expect, it } from 'vitest';
import { DEVIATION_IDS } from '../../switches/catalogue.ts';
import { REAL_SERVER_GAPS } from './real-server-gaps.ts';
import { TwinApps } from './testing/real-server-test-kit.ts';

/** The §11 behaviours without a switch: each says why, and the "already simulated" ones really are. */

type Row = Record<string, any>;

describe('real-server behaviours without a switch', () => {
  it('are not switches, and each gives its reason', () => {
    for (const g of REAL_SERVER_GAPS) {
      expect(DEVIATION_IDS, g.id).not.toContain(g.id);
      expect(g.notes, g.id).toMatch(/^notes §/);
      expect(g.reason.length, g.id).toBeGreaterThan(40);
    }
  });

  it('the unbroken simulator already behaves as the ones marked already-simulated', async () => {
    expect(
      REAL_SERVER_GAPS.filter((g) => g.why === 'already-simulated')
        .map((g) => g.id)
        .sort(),
    ).toEqual(
      [
        'client-total-ignores-filter',
        'health-ready-503-code-0',
        'subscribe-detail-keyed-by-topic',
        'system-monitor-percent-read-view',
        'topic-create-unknown-tenant',
      ].sort(),
    );
    const apps = new TwinApps({ workload: 'demo', seed: 3 });
    const sim = apps.plain;

    // client-total-ignores-filter
    const all = (await sim.get('/api/mqtt/client/list?tenant=acme')).json.data;
    const one = (await sim.get(`/api/mqtt/client/list?tenant=acme&client_id=${all.data[0].client_id}`)).json.data;
    expect(one.data.length).toBeLessThan(all.data.length);
    expect(one.total_count).toBe(all.total_count);

    // system-monitor-percent-read-view
    expect((await sim.get('/api/cluster/config/get')).json.data.mqtt_system_monitor).toMatchObject({
      os_cpu_high_watermark: 70,
      os_memory_high_watermark: 80,
    });

    // health-ready-503-code-0
    apps.cluster.nodes.setPortsReady(1, false);
    const ready = await sim.get('/health/ready');
    expect([ready.status, ready.json.code, ready.json.data.status]).toEqual([503, 0, 'not_ready']);
    apps.cluster.nodes.setPortsReady(1, true);

    // subscribe-detail-keyed-by-topic: the keys are topics the filter matched, not the filter itself
    const subs = (await sim.get('/api/mqtt/subscribe/list')).json.data.data as Row[];
    let keyedByTopic = false;
    for (const s of subs.filter((x) => /[+#]/.test(x.path))) {
      const d = (await sim.get(`/api/mqtt/subscribe/detail?tenant=${s.tenant}&client_id=${s.client_id}&path=${encodeURIComponent(s.path)}`))
        .json.data;
      const keys = Object.keys(d.sub_data.push_subscribe);
      if (keys.length > 0) {
        expect(keys).not.toContain(s.path);
        keyedByTopic = true;
        break;
      }
    }
    expect(keyedByTopic).toBe(true);

    // topic-create-unknown-tenant
    expect(
      (await sim.post('/api/cluster/topic/create', { tenant: 'no-such-tenant', topic_name: 'gap/t', storage_type: 'EngineMemory' })).json
        .code,
    ).toBe(0);
  });
});
