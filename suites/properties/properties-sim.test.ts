import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '../targets/target.ts';
import { API } from '../../contract/index.ts';
import { modelledFamilies, runPropertySuites, toCheckRecord, type PropertyResult } from './index.ts';

/**
 * The property suites against the embedded simulator: every property passes, reaches the behaviour
 * (no vacuous pass), covers the eight families and every readable endpoint, and stays fast.
 */

let sim: Target & { close(): Promise<void> };

beforeAll(async () => {
  const { SimTarget } = await import('../targets/sim-target.ts');
  sim = await SimTarget.start({ seed: 1 });
});

afterAll(async () => {
  await sim?.close();
});

describe('property suites against the simulator', () => {
  let results: PropertyResult[];
  let seconds: number;

  beforeAll(async () => {
    const started = performance.now();
    results = await runPropertySuites(sim, { seed: 1 });
    seconds = (performance.now() - started) / 1000;
  });

  it('all pass, none vacuous, within the time budget', () => {
    const notPassed = results.filter((r) => r.status !== 'pass');
    expect(notPassed.map((r) => `${r.endpointId} ${r.id}: ${r.message}`)).toEqual([]);
    expect(results.filter((r) => r.status === 'inconclusive').map((r) => r.property)).toEqual([]);
    expect(seconds).toBeLessThan(15);
  });

  it('covers the eight families with model runs and every endpoint of theirs', () => {
    const models = new Set(results.filter((r) => r.id.startsWith('property.model.')).map((r) => r.property));
    const EIGHT = ['acl', 'auto-subscribe', 'blacklist', 'connectors', 'schemas', 'tenants', 'topic-rewrite', 'users'];
    expect(
      modelledFamilies(API)
        .map((m) => m.tag)
        .sort(),
    ).toEqual(EIGHT);
    expect([...models].sort()).toEqual(EIGHT.map((k) => `model.${k}`));
    const endpoints = new Set(results.filter((r) => r.id === 'property.model.tenants').map((r) => r.endpointId));
    expect([...endpoints].sort()).toEqual([
      'cluster.tenant.create',
      'cluster.tenant.delete',
      'cluster.tenant.list',
      'cluster.tenant.update',
    ]);
    expect(results.some((r) => r.property === 'model.schemas' && r.endpointId === 'cluster.schema-bind.list')).toBe(true);
  });

  it('generates requests for every list endpoint and the creates of the families', () => {
    const req = new Set(results.filter((r) => r.id === 'property.requests').map((r) => r.endpointId));
    for (const id of [
      'cluster.tenant.list',
      'mqtt.client.list',
      'cluster.topic.detail',
      'mqtt.monitor.data',
      'cluster.user.create',
      'cluster.connector.create',
      'cluster.schema-bind.create',
    ])
      expect(req.has(id)).toBe(true);
    // Never the endpoints that change the cluster beyond the run's tenant.
    for (const id of ['cluster.node.leave', 'cluster.config.set', 'cluster.topic.delete', 'storage.shard.delete'])
      expect(req.has(id)).toBe(false);
  });

  it('maps to report check records', () => {
    const r = results.find((x) => x.property === 'model.users')!;
    expect(toCheckRecord(r)).toEqual({
      id: 'property.model.users',
      assertion: 'service.manage',
      level: 'MUST',
      status: 'pass',
      message: r.message,
    });
    expect(r.message).toMatch(/30 runs agreed with the reference model \(seed 1; \d+ requests/);
  });
});

describe('options', () => {
  it('families selects model properties and the request properties of those families (by tag)', async () => {
    const results = await runPropertySuites(sim, { seed: 2, families: ['users'], numRuns: 3 });
    expect(new Set(results.map((r) => r.property))).toEqual(
      new Set(['model.users', 'requests.cluster.user.list', 'requests.cluster.user.create']),
    );
    expect(results.every((r) => r.status === 'pass' && r.numRuns === 3)).toBe(true);
  });

  it('a property path replays exactly one case of one property', async () => {
    const results = await runPropertySuites(sim, { seed: 2, path: 'model.acl~0' });
    expect(new Set(results.map((r) => r.property))).toEqual(new Set(['model.acl']));
    expect(results.every((r) => r.status === 'pass' && r.message.startsWith('the replayed case'))).toBe(true);
  });

  it('a path naming no property of the run is a usage error', async () => {
    await expect(runPropertySuites(sim, { seed: 2, path: 'model.nothing~0' })).rejects.toThrow(/names property "model.nothing"/);
    await expect(runPropertySuites(sim, { seed: 2, path: 'garbage' })).rejects.toThrow(/<property>~<path>/);
  });
});

describe('replay errors', () => {
  it('a path that does not fit the property is a usage error naming it', async () => {
    await expect(runPropertySuites(sim, { seed: 2, path: 'model.acl~0:9:9:9:9' })).rejects.toThrow(
      /does not fit property model.acl with seed 2/,
    );
  });
});
