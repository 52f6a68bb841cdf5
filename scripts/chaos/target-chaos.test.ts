import { spawn, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { SimTarget } from '../../suites/targets/sim-target.ts';
import { AckHistory } from './api-history.ts';
import { MQSIM_BIN as BIN, startServe, stopAll } from '../cli/testing/serve-process.ts';
import { runTargetChaos } from './target-chaos.ts';

/** Starts `mqsim serve` on a free port; resolves with its base URL. */
async function serve(...extra: string[]): Promise<string> {
  return (await startServe(['--workload', 'none', '--nodes', '3', ...extra])).url;
}

afterAll(() => stopAll('SIGTERM'));

const chaos = (url: string, ...extra: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, 'chaos', '--target', url, '--seed', '3', '--steps', '200', ...extra], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });

describe('acknowledged history', () => {
  it('flags a lost create and a returned delete, and not what was never acknowledged', () => {
    const h = new AckHistory();
    const create = { method: 'POST' as const, path: '/api/cluster/tenant/create', body: { tenant_name: 't-1' } };
    const del = { method: 'POST' as const, path: '/api/cluster/tenant/delete', body: { tenant_name: 't-2' } };
    h.baseline('tenant', '', 't-2', true);
    h.acknowledged(create, 0);
    h.acknowledged(del, 1);
    expect(h.compare('tenant', '', new Set(['t-1']), 2)).toEqual([]);
    expect(
      h
        .compare('tenant', '', new Set(['t-2']), 2)
        .map((v) => v.name)
        .sort(),
    ).toEqual(['api.acknowledged-create-lost', 'api.deleted-resource-returned']);
    h.lost({ ...create, body: { tenant_name: 't-1' } }); // answer lost: t-1 unknown now
    expect(h.compare('tenant', '', new Set(), 3).map((v) => v.name)).toEqual([]);
  });
});

describe('mqsim chaos --target', () => {
  it('passes against a correct server (the in-process target), with lists compared along the way', async () => {
    const target = await SimTarget.start({ seed: 5, workload: 'none', transport: 'in-process' });
    const r = await runTargetChaos(target, { seed: '3', steps: 300 });
    await target.close();
    expect(r.violations).toEqual([]);
    expect(r.calls.ok).toBeGreaterThan(100);
    expect(r.list_checks).toBeGreaterThan(20);
  });

  it('passes against `mqsim serve` over HTTP, and catches a server that drops acknowledged creates', async () => {
    const [good, broken] = await Promise.all([serve(), serve('--deviation', 'acl-create-write-dropped')]);
    const ok = await chaos(good, '--json', '--username', 'admin', '--password', 'admin');
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ passed: true, violations: [] });
    const bad = await chaos(broken);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(
      /VIOLATION api\.acknowledged-create-lost after step \d+: acl \S+ was created \(acknowledged at step \d+\) and never deleted, but the list does not show it/,
    );
    expect(bad.stdout.trim().split('\n').at(-1)).toBe('FAIL');
  }, 60_000);

  it('is a usage error with --seeds or --bug, and a vacuous run (nothing acknowledged) fails', async () => {
    const a = spawnSync(process.execPath, [BIN, 'chaos', '--target', 'http://127.0.0.1:9', '--seeds', '1..2'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(a.status).toBe(2);
    expect(a.stderr).toContain('--target');
    const dead = await chaos('http://127.0.0.1:9', '--steps', '5');
    expect(dead.status).toBe(1);
  }, 60_000);
});
