import { describe, expect, it } from 'vitest';
import { conform, createCluster, SelectionError, SetupError } from './index.ts';

const TENANTS = ['/api/cluster/tenant/*'];

describe('conform', () => {
  it('checks a cluster made by createCluster in-process and returns the report', async () => {
    const cluster = createCluster({ workload: 'none', seed: 9 });
    const traced = cluster.traceLength;
    const report = await conform({ target: cluster, only: TENANTS, properties: false });
    expect(report.verdict).toBe('pass');
    expect(report.findings).toEqual([]);
    expect(report.target).toBe('cluster(seed 9, 3 nodes, none, spec)');
    expect(report.endpoints.map((e) => e.path).sort()).toEqual([
      '/api/cluster/tenant/create',
      '/api/cluster/tenant/delete',
      '/api/cluster/tenant/list',
      '/api/cluster/tenant/update',
    ]);
    expect(report.summary.passed).toBeGreaterThan(20);
    // The run went through the cluster it was given (its fixtures were created there, then cleaned up).
    expect(cluster.traceLength - traced).toBeGreaterThan(100);
    expect(cluster.checkInvariants()).toEqual([]);
  });

  it("finds the real server's behaviours in a robustmq-dialect cluster", async () => {
    const report = await conform({ target: createCluster({ dialect: 'robustmq', workload: 'none' }), only: TENANTS, properties: false });
    expect(report.verdict).toBe('fail');
    expect(report.findings.filter((f) => f.level === 'MUST').length).toBeGreaterThan(0);
  });

  it('checks a URL: the cluster served on sockets', async () => {
    // Over sockets a 429 is waited out on the wall clock, which a manual clock never follows: no limit.
    const cluster = createCluster({ workload: 'none', adminRateLimit: 0 });
    const served = await cluster.listen();
    try {
      const report = await conform({ target: served.url, only: TENANTS, properties: false });
      expect(report.target).toBe(served.url);
      expect(report.verdict).toBe('pass');
    } finally {
      await cluster.close();
    }
  });

  it('checks the embedded simulator ("sim")', async () => {
    const report = await conform({ target: 'sim', seed: 3, only: TENANTS, properties: false });
    expect(report.target).toBe('sim');
    expect(report.seed).toBe(3);
    expect(report.verdict).toBe('pass');
  });

  it('runs list histories of the depth asked for, and says it in the replay', async () => {
    const report = await conform({ target: createCluster({ workload: 'none', seed: 9 }), only: TENANTS, propertyRuns: 2, depth: 30 });
    const history = report.endpoints
      .find((e) => e.path === '/api/cluster/tenant/list')!
      .checks.find((c) => c.id === 'property.history.lists');
    expect(history?.status).toBe('pass');
    expect(history?.message).toMatch(/^2 runs agreed with the reference model/);
    expect(report.replay).toContain('depth: 30');
  });

  it('throws SetupError when nothing answers, SelectionError for a pattern that matches nothing', async () => {
    await expect(conform({ target: 'http://127.0.0.1:9', only: TENANTS, properties: false, timeoutMs: 2_000 })).rejects.toBeInstanceOf(
      SetupError,
    );
    await expect(conform({ target: 'sim', only: ['/no/such/path'] })).rejects.toBeInstanceOf(SelectionError);
  });

  it('takes only/skip as a string, as the CLI flag gives it, or as an array', async () => {
    const one = await conform({ target: 'sim', only: '/api/cluster/tenant/*', skip: 'POST /api/cluster/tenant/delete', properties: false });
    expect(one.endpoints.map((e) => e.path).sort()).toEqual([
      '/api/cluster/tenant/create',
      '/api/cluster/tenant/list',
      '/api/cluster/tenant/update',
    ]);
    expect(one.selection).toMatchObject({ only: ['/api/cluster/tenant/*'], skip: ['POST /api/cluster/tenant/delete'] });
    const commas = await conform({ target: 'sim', only: '/api/cluster/tenant/list,/api/status', properties: false });
    expect(commas.endpoints.map((e) => e.path).sort()).toEqual(['/api/cluster/tenant/list', '/api/status']);
  });

  it('refuses an option of the wrong type with a TypeError naming it and what it takes', async () => {
    const bad = (options: Record<string, unknown>) => conform({ target: 'sim', ...options } as Parameters<typeof conform>[0]);
    await expect(bad({ only: 7 })).rejects.toThrow(
      new TypeError(
        `conform: option "only" must be a string or an array of strings (patterns such as '/api/cluster/tenant/*', 'tenants' or 'cluster.*'; comma-separated allowed), got number 7`,
      ),
    );
    await expect(bad({ skip: ['tenants', 3] })).rejects.toThrow(/^conform: option "skip" must be a string or an array of strings/);
    await expect(bad({ failOn: 'MUST' })).rejects.toThrow(
      `conform: option "failOn" must be one of 'must', 'should', 'info', got the string "MUST"`,
    );
    await expect(bad({ properties: 'false' })).rejects.toThrow(`conform: option "properties" must be a boolean, got the string "false"`);
    await expect(bad({ seed: '7' })).rejects.toThrow(/option "seed" must be an integer from 0/);
    await expect(bad({ nodes: 12 })).rejects.toThrow(/option "nodes" must be an integer from 1 to 9, got number 12/);
    await expect(bad({ timeoutMs: -1 })).rejects.toThrow(/option "timeoutMs" must be an integer from 1/);
    await expect(bad({ propertyRuns: 1.5 })).rejects.toThrow(/option "propertyRuns"/);
    await expect(bad({ depth: 0 })).rejects.toThrow(/option "depth" must be an integer from 1 to 1000000, got number 0/);
    await expect(bad({ onProgress: 'log' })).rejects.toThrow(/option "onProgress" must be a function/);
    await expect(bad({ username: 1 })).rejects.toThrow(/option "username" must be a string/);
    await expect(bad({ onlyy: ['tenants'] })).rejects.toThrow(/^conform: unknown option "onlyy" \(the options are target, seed,/);
    await expect(conform({ target: 42 } as never)).rejects.toThrow(TypeError);
    await expect(conform(undefined as never)).rejects.toThrow(/^conform: options must be an object/);
  });
});
