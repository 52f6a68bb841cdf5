import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT } from '../../../contract/index.ts';
import { startProxy, type RunningProxy } from '../../scenarios/test-proxy.ts';
import { SIM_ADMIN, SimTarget } from '../../targets/sim-target.ts';
import { UrlTarget } from '../../targets/url-target.ts';
import type { CheckRecord, Report } from '../report-model.ts';
import { runConform } from '../../run/runner.ts';

/**
 * Capability detection against a server that exempts more peers than the spec (every request reaches
 * the simulator from 127.0.0.1 through a proxy, so 127.0.0.2 needs no token) and has no MQTT
 * listener (config get names a closed port) and no simulator control: the checks that need those are
 * skipped with the reason, and the wider exemption is one INFO failure.
 */

let sim: SimTarget;
let proxy: RunningProxy;
let report: Report;
let noSecondAddress: string | undefined;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

beforeAll(async () => {
  sim = await SimTarget.start({ seed: 5, transport: 'loopback', workload: 'demo' });
  const mqttPort = await closedPort();
  proxy = await startProxy(sim.baseUrl, {
    exemptEveryPeer: true,
    rewrite: (_method, path, _status, body) => {
      if (path !== '/api/cluster/config/get') return undefined;
      const json = JSON.parse(body);
      if (json?.data?.mqtt_server) json.data.mqtt_server.tcp_port = mqttPort;
      return JSON.stringify(json);
    },
  });
  const target = await UrlTarget.create({ url: proxy.url, username: SIM_ADMIN.username, password: SIM_ADMIN.password });
  if (!target.capabilities.remotePeer.available) noSecondAddress = target.capabilities.remotePeer.reason;
  const tags = new Set(['auth', 'cluster-status', 'config', 'tenants', 'topics', 'mqtt', 'mq9', 'node']);
  try {
    report = await runConform({ target, seed: 5, contract: CONTRACT.filter((e) => tags.has(e.tag)) });
  } finally {
    await target.close();
  }
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await sim?.close();
});

function check(method: string, path: string, id: string): CheckRecord | undefined {
  return report.endpoints.find((e) => e.method === method && e.path === path)?.checks.find((c) => c.id === id);
}

describe('capability detection', () => {
  it('skips the auth checks from 127.0.0.2 with the reason, and reports the wider exemption as one MUST finding (spec: only 127.0.0.1 and ::1 are exempt)', (test) => {
    if (noSecondAddress) test.skip(`127.0.0.2 cannot be bound here: ${noSecondAddress}`);
    const reason =
      'target exempts 127.0.0.2 from authentication (the spec exempts only 127.0.0.1 and ::1); to run the auth checks give --peer-address ADDR, an address of this host the target does not exempt';
    expect(report.notes).toContain(`capability non-loopback peer (auth checks): unavailable — ${reason}`);
    for (const id of ['auth.no-token', 'auth.invalid-token', 'auth.alg-none-token', 'auth.expired-token', 'auth.tampered-token']) {
      expect(check('GET', '/api/cluster/tenant/list', id)).toMatchObject({ status: 'skipped', message: reason });
    }
    expect(check('POST', '/api/v1/login', 'login.token-opens-api')).toMatchObject({ status: 'skipped' });
    expect(check('POST', '/api/v1/login', 'login.token-opens-api')!.message).toContain(reason);
    const exemption = check('GET', '/api/status', 'auth.loopback-exemption')!;
    expect(exemption).toMatchObject({ status: 'fail', level: 'MUST' });
    expect(exemption.message).toMatch(/exempts more peers than the spec/);
    const failures = report.endpoints.flatMap((e) => e.checks.filter((c) => c.status === 'fail').map((c) => `${e.path} ${c.id}`));
    expect(failures).toEqual(['/api/status auth.loopback-exemption']);
  });

  it('skips the checks that need an MQTT client or the simulator control, each with its reason', () => {
    expect(
      report.notes.some((n) =>
        /^capability MQTT listener: unavailable — no MQTT listener answers: cannot connect to 127\.0\.0\.1:\d+/.test(n),
      ),
    ).toBe(true);
    expect(report.notes).toContain(
      'capability simulator control interface: unavailable — the target has no simulator control interface (only --target sim has one)',
    );
    const mqtt = check('GET', '/api/mqtt/client/list', 'client.connected-listed')!;
    expect(mqtt.status).toBe('skipped');
    expect(mqtt.message).toMatch(
      /^needs an MQTT client: no MQTT listener answers: cannot connect to 127\.0\.0\.1:\d+: .*ECONNREFUSED.*; and no simulator control interface/,
    );
    expect(check('GET', '/api/cluster/topic/detail', 'topic.detail-sub-list')?.status).toBe('skipped');
    for (const [method, path, id] of [
      ['GET', '/api/mq9/mail/list', 'mq9.not-running'],
      ['POST', '/api/cluster/node/leave', 'node-leave.quorum-refusal'],
      ['GET', '/api/mq9/agent/list', 'mq9.agent-listed'],
    ] as const) {
      const c = check(method, path, id);
      expect(c, `${path} ${id}`).toMatchObject({ status: 'skipped' });
      expect(c!.message).toMatch(/^needs the simulator control interface: the target has no simulator control interface/);
    }
    // What needs nothing extra still ran: rule 3 of node removal, the monitor rules.
    expect(check('POST', '/api/cluster/node/leave', 'node-leave.unknown-node-succeeds')?.status).toBe('pass');
    expect(check('GET', '/api/mqtt/monitor/data', 'monitor.missing-dimension')?.status).toBe('pass');
  });
});
