import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from '../scenarios/test-proxy.ts';
import { SIM_ADMIN, SimTarget } from '../targets/sim-target.ts';
import type { CheckRecord } from './report-model.ts';
import type { Report } from './report-model.ts';
import { runConform } from '../run/runner.ts';

/**
 * `--peer-address` against a server that exempts the default non-loopback peer 127.0.0.2 from
 * tokens (the simulator behind a proxy that forwards 127.0.0.2 from 127.0.0.1): without the flag the
 * auth checks are skipped with a reason that says so and names the flag; from 127.0.0.3 they run.
 */

let sim: SimTarget;
let proxy: RunningProxy;
const AUTH = [
  'auth.no-token',
  'auth.invalid-token',
  'auth.alg-none-token',
  'auth.expired-token',
  'auth.expired-signed-token',
  'auth.tampered-token',
];

beforeAll(async () => {
  sim = await SimTarget.start({ seed: 3, nodes: 1, transport: 'loopback', workload: 'none' });
  proxy = await startProxy(sim.baseUrl, { exemptPeers: ['127.0.0.2'] });
});

afterAll(async () => {
  await proxy?.close();
  await sim?.close();
});

const run = (peerAddress?: string): Promise<Report> =>
  runConform({
    target: proxy.url,
    seed: 3,
    username: SIM_ADMIN.username,
    password: SIM_ADMIN.password,
    jwtSecret: SIM_ADMIN.jwtSecret,
    only: ['cluster.tenant.list'],
    properties: false,
    ...(peerAddress ? { peerAddress } : {}),
  });

const authChecks = (report: Report) => report.endpoints[0].checks.filter((c) => AUTH.includes(c.id));

describe('--peer-address', () => {
  it('without it, a target exempting 127.0.0.2 gets its auth checks skipped with that reason, naming the flag', async (test) => {
    const report = await run();
    if (report.notes.some((n) => n.startsWith('auth checks skipped')))
      test.skip(`no second loopback address here: ${report.notes.join(' / ')}`);
    const reason =
      'target exempts 127.0.0.2 from authentication (the spec exempts only 127.0.0.1 and ::1); to run the auth checks give --peer-address ADDR, an address of this host the target does not exempt';
    expect(authChecks(report).map((c) => [c.id, c.status, c.message])).toEqual(AUTH.map((id) => [id, 'skipped', reason]));
    expect(report.notes).toContain(`capability non-loopback peer (auth checks): unavailable — ${reason}`);
  });

  it('with --peer-address 127.0.0.3 the auth checks run from there, and the replay command keeps the flag', async (test) => {
    const report = await run('127.0.0.3');
    if (report.notes.some((n) => n.startsWith('auth checks skipped')))
      test.skip(`127.0.0.3 cannot be bound here: ${report.notes.join(' / ')}`);
    expect(authChecks(report).map((c) => [c.id, c.status])).toEqual(AUTH.map((id) => [id, 'pass']));
    expect(report.capabilities?.authChecks).toEqual({ available: true });
    expect(report.replay).toBe(
      `mqsim conform --target ${proxy.url} --seed 3 --username admin --password "$MQSIM_PASSWORD" --jwt-secret "$MQSIM_JWT_SECRET" --peer-address 127.0.0.3 --only cluster.tenant.list`,
    );
  });
});

/**
 * A server that breaks the loopback rule both ways (exempts all of 127.0.0.0/8, and serves the user
 * list to any peer without a token), checked from a non-loopback peer: both show in one run, each as
 * checks of its own — the 127.0.0.2 probe beside the auth checks from the non-loopback address.
 */
describe('a non-loopback --peer-address with a second loopback address', () => {
  const check = (report: Report, path: string, id: string): CheckRecord | undefined =>
    report.endpoints.find((e) => e.path === path)?.checks.find((c) => c.id === id);

  it('flags a 127.0.0.0/8 exemption and a path open to the non-loopback peer in the same run', async () => {
    const target = await SimTarget.start({
      seed: 4,
      nodes: 1,
      workload: 'none',
      deviations: ['loopback-range-exempt', 'user-list-auth-skipped'],
      peerAddress: '10.0.0.9',
    });
    try {
      const report = await runConform({ target, seed: 4, only: ['GET /api/status', 'cluster.user.list'], properties: false });
      const exemption = check(report, '/api/status', 'auth.loopback-exemption');
      expect([exemption?.status, exemption?.message]).toEqual([
        'fail',
        expect.stringMatching(/^GET \S+ from 127\.0\.0\.2 without a token was answered/),
      ]);
      expect(exemption?.curl).toContain('--interface 127.0.0.2');
      // From 10.0.0.9 the auth checks run: the open user list fails them, the status endpoint passes them.
      for (const id of AUTH.filter((a) => a !== 'auth.expired-signed-token')) {
        expect([id, check(report, '/api/cluster/user/list', id)?.status]).toEqual([id, 'fail']);
        expect([id, check(report, '/api/status', id)?.status]).toEqual([id, 'pass']);
      }
      expect(check(report, '/api/cluster/user/list', 'auth.no-token')?.message).toContain('sent from 10.0.0.9');
      expect(report.findings.map((f) => f.assertion).sort()).toEqual(['auth.rule-2-remote-token', 'auth.rule-5-401']);
    } finally {
      await target.close();
    }
  });
});
