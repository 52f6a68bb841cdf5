import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '../targets/target.ts';
import { UrlTarget } from '../targets/url-target.ts';
import { runPropertySuites, type PropertyResult } from './index.ts';
import { editList, startFaultProxy, SUCCESS, type Fault } from './testing/fault-proxy.ts';

/**
 * The properties against deliberately broken servers (a fault proxy in front of the simulator): the
 * right property fails on the right endpoint, the failure carries seed, path and the shrunk
 * counterexample, and replaying that seed and path reproduces the same failure.
 */

let sim: Target & { close(): Promise<void> };

beforeAll(async () => {
  const { SimTarget } = await import('../targets/sim-target.ts');
  // Served on loopback so the fault proxy can forward to it over HTTP.
  sim = await SimTarget.start({ seed: 1, workload: 'none', nodes: 1, transport: 'loopback' });
});

afterAll(async () => {
  await sim?.close();
});

async function withFault<T>(fault: Fault, fn: (t: Target) => Promise<T>): Promise<T> {
  const proxy = await startFaultProxy(sim.baseUrl, fault);
  const target = await UrlTarget.create({ url: proxy.url, name: 'broken' });
  try {
    return await fn(target);
  } finally {
    await target.close();
    await proxy.close();
  }
}

function failuresOf(results: PropertyResult[]): PropertyResult[] {
  return results.filter((r) => r.status === 'fail');
}

/** Replays a failure with its seed and path and expects the same failure. */
async function expectReplay(target: Target, f: PropertyResult): Promise<void> {
  const again = failuresOf(await runPropertySuites(target, { seed: f.seed, path: f.counterexamplePath!, ratePerPath: 0 }));
  expect(again).toHaveLength(1);
  expect(again[0].endpointId).toBe(f.endpointId);
  expect(again[0].rule).toBe(f.rule);
  expect(again[0].counterexample).toEqual(f.counterexample);
  expect(again[0].counterexamplePath).toBe(f.counterexamplePath);
}

function expectReplayable(f: PropertyResult, seed: number): void {
  expect(f.seed).toBe(seed);
  expect(f.counterexamplePath).toMatch(/~\d+(:\d+)*/);
  expect(f.counterexample!.length).toBeGreaterThan(0);
  expect(f.replay).toBe(`mqsim conform --target broken --seed ${seed} --property-path '${f.counterexamplePath}'`);
  expect(f.message).toContain(`seed ${seed}`);
  expect(f.message).toContain(f.counterexamplePath!);
  expect(f.request).toBeDefined();
  expect(f.curl).toContain('curl');
}

describe('properties against a broken server', () => {
  it('a server that accepts a too-long tenant name fails the tenant properties on tenant create, shrunk and replayable', async () => {
    const fault: Fault = async (req) =>
      req.method === 'POST' &&
      req.path === '/api/cluster/tenant/create' &&
      typeof (req.body as { tenant_name?: unknown }).tenant_name === 'string' &&
      [...(req.body as { tenant_name: string }).tenant_name].length > 128
        ? { status: 200, body: SUCCESS }
        : undefined;
    await withFault(fault, async (target) => {
      const results = await runPropertySuites(target, { ratePerPath: 0, seed: 7, families: ['tenants'] });
      const fails = failuresOf(results);
      const model = fails.find((r) => r.property === 'model.tenants')!;
      expect(model).toBeDefined();
      expect(model.endpointId).toBe('cluster.tenant.create');
      expect(model.level).toBe('MUST');
      expect(model.rule).toBe('create.refuses-too-long');
      expectReplayable(model, 7);
      // Shrunk to the one offending create (plus the run's final list).
      expect(model.counterexample!.length).toBeLessThanOrEqual(2);
      expect(model.counterexample![0]).toMatch(/^create .*tenant_name.*\(129 chars\).*breaks tenant_name \(too-long\)/);
      // Nothing else is blamed (the request property may find the same deviation).
      expect(
        fails.every((r) => r.endpointId === 'cluster.tenant.create' && ['create.refuses-too-long', 'invalid.too-long'].includes(r.rule!)),
      ).toBe(true);
      await expectReplay(target, model);
    });
  });

  it('a server that loses a created user from the list fails the users property on user list', async () => {
    const fault: Fault = async (req, forward) => {
      if (req.method !== 'GET' || req.path !== '/api/cluster/user/list') return undefined;
      const up = await forward();
      // Drops the user with the greatest name of a run's scope.
      return {
        status: up.status,
        body: editList(up.body, (rows) => {
          const scoped = rows.filter((r) => String(r.tenant).startsWith('pt'));
          if (scoped.length === 0) return { rows, total: rows.length };
          const last = scoped
            .map((r) => String(r.username))
            .sort()
            .at(-1);
          const kept = rows.filter((r) => r.username !== last);
          return { rows: kept, total: kept.length };
        }),
      };
    };
    await withFault(fault, async (target) => {
      const fails = failuresOf(await runPropertySuites(target, { ratePerPath: 0, seed: 3, families: ['users'] }));
      expect(fails).toHaveLength(1);
      const f = fails[0];
      expect(f.property).toBe('model.users');
      expect(f.endpointId).toBe('cluster.user.list');
      expect(f.rule).toBe('list.matches-model');
      expect(f.message).toContain('does not show it');
      expectReplayable(f, 3);
      expect(f.counterexample!.length).toBeLessThanOrEqual(3);
      await expectReplay(target, f);
    });
  });

  it('a server whose delete does nothing fails the connectors property after the delete (the list shows it, or a new create finds it)', async () => {
    const fault: Fault = async (req) =>
      req.method === 'POST' && req.path === '/api/cluster/connector/delete' ? { status: 200, body: SUCCESS } : undefined;
    await withFault(fault, async (target) => {
      const fails = failuresOf(await runPropertySuites(target, { ratePerPath: 0, seed: 5, families: ['connectors'], numRuns: 20 }));
      const f = fails.find((r) => r.property === 'model.connectors')!;
      if (f.endpointId === 'cluster.connector.list') expect(f.message).toContain('never created it (or deleted it)');
      else expect([f.endpointId, f.rule]).toEqual(['cluster.connector.create', 'create.new-succeeds']);
      expect(f.counterexample!.some((l) => l.startsWith('delete '))).toBe(true);
      expectReplayable(f, 5);
      await expectReplay(target, f);
    });
  });

  it('a broken failure envelope is a MUST failure of the endpoint that sent it', async () => {
    const fault: Fault = async (req, forward) => {
      if (req.path !== '/api/cluster/acl/create') return undefined;
      const up = await forward();
      const json = JSON.parse(up.body) as { code: number; data: unknown };
      return json.code !== 0 ? { status: up.status, body: JSON.stringify({ ...json, data: { oops: true } }) } : undefined;
    };
    await withFault(fault, async (target) => {
      const fails = failuresOf(await runPropertySuites(target, { ratePerPath: 0, seed: 11, families: ['acl'] }));
      const f = fails.find((r) => r.property === 'model.acl')!;
      expect(f.endpointId).toBe('cluster.acl.create');
      expect(f.rule).toBe('envelope');
      expect(f.level).toBe('MUST');
      expect(f.message).toContain('must have data null or ""');
      await expectReplay(target, f);
      // The request property sees it too, and its one-request counterexample replays the same way.
      const req = fails.find((r) => r.property === 'requests.cluster.acl.create')!;
      expect([req.endpointId, req.rule, req.counterexample!.length]).toEqual(['cluster.acl.create', 'envelope', 1]);
      await expectReplay(target, req);
    });
  });

  it('an INFO failure (blacklist total_count) does not hide MUST rules: the MUST-only re-run passes', async () => {
    const fault: Fault = async (req, forward) => {
      if (req.method !== 'GET' || req.path !== '/api/cluster/blacklist/list') return undefined;
      const up = await forward();
      return { status: up.status, body: editList(up.body, (rows, total) => ({ rows, total: total + 1 })) };
    };
    await withFault(fault, async (target) => {
      const results = (await runPropertySuites(target, { ratePerPath: 0, seed: 2, families: ['blacklist'] })).filter((r) =>
        r.property.startsWith('model.'),
      );
      const f = results.find((r) => r.status === 'fail')!;
      expect(f.endpointId).toBe('cluster.blacklist.list');
      expect(f.level).toBe('INFO');
      expect(f.rule).toBe('list.total-count');
      const mustOnly = results.filter((r) => r.property === 'model.blacklist.must-only');
      expect(mustOnly.length).toBeGreaterThan(0);
      expect(mustOnly.every((r) => r.status === 'pass' && r.id === 'property.model.blacklist.must-only')).toBe(true);
      await expectReplay(target, f);
    });
  });
});
