import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '../../targets/target.ts';
import { UrlTarget } from '../../targets/url-target.ts';
import { startPlainListServer, type PlainListServer } from '../../conform/testing/plain-list-server.ts';
import { runPropertySuites, type PropertyResult } from '../index.ts';
import { expectPassed } from './testing/expect-passed.ts';

/**
 * The list histories (property `history.lists`) against servers that answer lists right in
 * different ways (no failure allowed; the real server's dialect: scripts/deviations/
 * robustmq-list-histories.test.ts), and against the simulator with each list fault that only a
 * history shows (one failure each, on the right list, shrunk, with its curl lines and replay).
 * Bounded: histories of the default depth, in-process or on loopback; a few seconds each.
 */

type Closable = Target & { close(): Promise<void> };

async function simulator(options: { deviations?: readonly string[] } = {}): Promise<Closable> {
  const { SimTarget } = await import('../../targets/sim-target.ts');
  return SimTarget.start({ seed: 1, warmUpMs: 60_000, deviations: options.deviations ?? [] });
}

async function histories(target: Target, extra: { path?: string; ratePerPath?: number } = {}): Promise<PropertyResult[]> {
  return runPropertySuites(target, { seed: 1, families: ['history'], ...extra });
}

describe('servers that answer lists right pass every history', () => {
  it('the simulator, as the spec says', async () => {
    const sim = await simulator();
    try {
      expectPassed(await histories(sim));
    } finally {
      await sim.close();
    }
  }, 60_000);

  describe('a plain server that sorts, filters and pages each list per request, with its own choices where the spec is silent', () => {
    let server: PlainListServer;
    let target: UrlTarget;
    beforeAll(async () => {
      server = await startPlainListServer();
      target = await UrlTarget.create({ url: server.url, username: 'admin', password: 'admin', timeoutMs: 5000 });
    });
    afterAll(async () => {
      await target?.close();
      await server?.close();
    });

    it('passes, newest first without a sort field and ties in another order notwithstanding', async () => {
      expectPassed(await histories(target, { ratePerPath: 0 }));
    }, 60_000);
  });
});

/** The list faults of the deviation catalogue that only a history shows, with the finding each must give. */
const FAULTS = [
  {
    id: 'tenant-list-filter-keeps-first-direction',
    list: 'cluster.tenant.list',
    assertion: 'endpoints.tenant.list.query',
    rule: 'list.sort',
  },
  {
    id: 'blacklist-list-upsert-keeps-sort-position',
    list: 'cluster.blacklist.list',
    assertion: 'notes.path-only.list-sort-fields',
    rule: 'list.sort',
  },
  { id: 'user-list-delete-kept-in-name-filter', list: 'cluster.user.list', assertion: 'service.manage', rule: 'list.records' },
  { id: 'acl-list-total-before-name-filters', list: 'cluster.acl.list', assertion: 'envelope.paged.total-count', rule: 'list.total-count' },
  {
    id: 'rewrite-list-page-cut-before-sort',
    list: 'cluster.topic-rewrite.list',
    assertion: 'envelope.paged.data',
    rule: 'list.page-slice',
  },
];

describe('each list fault that only a history shows is one failure, shrunk, printed as curl lines, replayable', () => {
  for (const f of FAULTS) {
    it(`${f.id} → ${f.assertion} on ${f.list}`, async () => {
      const sim = await simulator({ deviations: [f.id] });
      let failed: PropertyResult[];
      try {
        failed = (await histories(sim)).filter((r) => r.status === 'fail');
      } finally {
        await sim.close();
      }
      expect(failed.map((r) => `${r.endpointId} ${r.assertion} ${r.rule}`)).toEqual([`${f.list} ${f.assertion} ${f.rule}`]);
      const r = failed[0];
      // The shortest history that shows it: a few steps of the faulty family.
      expect(r.counterexample!.length).toBeLessThanOrEqual(8);
      const curls = r.message.split('\n').filter((l) => l.startsWith('curl -sS'));
      // Every request of the failing run: the run's two tenants, each step, the failing list request.
      expect(curls.length).toBeGreaterThanOrEqual(r.counterexample!.length + 2);
      expect(curls.some((l) => l.includes(r.request!.path))).toBe(true);
      expect(r.replay).toContain(`--seed 1 --property-path 'history.lists~`);

      // The replay runs exactly that case again, without shrinking.
      const again = await simulator({ deviations: [f.id] });
      try {
        const replayed = (await histories(again, { path: r.counterexamplePath! })).filter((x) => x.status === 'fail');
        expect(replayed.map((x) => x.counterexample)).toEqual([r.counterexample]);
      } finally {
        await again.close();
      }
    }, 60_000);
  }
});

describe('two faults on two lists', () => {
  it('are two failures: after the first, the histories run again without its family and find the second', async () => {
    const sim = await simulator({ deviations: ['acl-list-total-before-name-filters', 'blacklist-list-upsert-keeps-sort-position'] });
    try {
      const failed = (await histories(sim)).filter((r) => r.status === 'fail');
      expect(failed.map((r) => `${r.property} ${r.endpointId} ${r.level}`).sort()).toEqual([
        'history.lists cluster.acl.list MUST',
        'history.lists.except-acl cluster.blacklist.list INFO',
      ]);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
