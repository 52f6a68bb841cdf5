import { afterAll, describe, expect, it } from 'vitest';
import { runConform } from '../../suites/run/runner.ts';
import { startServe, stopAll } from './testing/serve-process.ts';

/**
 * `mqsim conform --target <mqsim serve --mqtt-port 0>` end to end: the conformance run finds the
 * listener where config get says it is (the real port, not a nominal one), acts as an MQTT client
 * through it, and every check that needs an MQTT client runs (none is skipped for want of one), with
 * no finding. Before the listener existed, 16 checks were skipped "needs an MQTT client" on such a
 * target. The property-based suites are left out to keep the test short (they need no MQTT client).
 */

afterAll(() => stopAll());

/** Checks that act through an MQTT client (scenario suites and the flapping, connector and monitor families). */
const MQTT_DEPENDENT = [
  'client.connected-listed',
  'session.connected-listed',
  'subscribe.created-listed',
  'subscribe.created-detail',
  'client.disconnected',
  'topic.detail-sub-list',
  'topic.detail-retained',
  'topic.delete-removes-retained',
  'topic.retain-payload-bytes',
  'topic.detail-retain-message-shape',
  'connector.delivery',
  'flapping.ban',
  'flapping.boundary',
  'auto-subscribe.applies-on-connect',
  'subscribe.detail-exclusive',
  'subscribe.detail-shared',
];

describe('mqsim conform against mqsim serve --mqtt-port 0', () => {
  it('detects the listener and runs every MQTT-dependent check, with no finding', async () => {
    const { child, exit, url, mqttPort: port } = await startServe(['--workload', 'none', '--mqtt-port', '0']);

    const report = await runConform({ target: url, seed: 4, properties: false });
    expect(report.capabilities?.mqttListener).toMatchObject({
      available: true,
      address: `127.0.0.1:${port}`,
      source: 'config get mqtt_server.tcp_port',
    });
    expect(report.capabilities?.mqttClient.via).toBe(`MQTT 3.1.1 over TCP at 127.0.0.1:${port} (tenant default)`);
    const checks = report.endpoints.flatMap((e) => e.checks.map((c) => ({ ...c, endpoint: `${e.method} ${e.path}` })));
    const forWantOfMqtt = checks.filter((c) => c.status === 'skipped' && /MQTT (client|listener)/i.test(c.message ?? ''));
    expect(forWantOfMqtt.map((c) => `${c.endpoint} ${c.id}: ${c.message}`)).toEqual([]);
    for (const id of MQTT_DEPENDENT) {
      const ran = checks.filter((c) => c.id === id);
      expect(ran.length, `check ${id} was not in the report`).toBeGreaterThan(0);
      expect(
        ran.map((c) => [id, c.status]),
        `check ${id}: ${ran.map((c) => c.message).join(' / ')}`,
      ).toEqual(ran.map(() => [id, 'pass']));
    }
    expect(report.findings.map((f) => `${f.level} ${f.id}: ${f.title}`)).toEqual([]);

    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  }, 90_000);
});
