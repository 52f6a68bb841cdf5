/**
 * The differential test of list answers, bounded for `npm test` (the long run is `npm run
 * soak:lists`): random histories of writes and list requests through the app, every answer compared
 * byte for byte with the reference answer, with the response cache and remembered list requests on and off;
 * each seeded index fault makes it fail, and the user report's seeded mix finds no wrong answer.
 */
import { describe, expect, it } from 'vitest';
import { CONTRACT } from '../../../contract/index.ts';
import { IndexedList } from '../../model/api/indexed-list.ts';
import { LIST_FAULT_NAMES, switchListFaults } from '../../model/api/list-faults.ts';
import type { HandlerContext } from '../core/handler-types.ts';
import { HANDLERS } from '../handlers/index.ts';
import {
  checkListHistories,
  describeFailure,
  historySim,
  LIST_ENDPOINT_IDS,
  ListAnswerDifference,
  newHistoryStats,
  stepsThatRan,
  type ListHistoryOptions,
} from './list-history.ts';
import { LIST_WRITES } from './list-writes.ts';
import { runSeededMix } from './seeded-mix.ts';

/**
 * Histories over at most three lists at a time, of at most 600 steps, 25 of them: the same runs
 * pass with every fault off (below) and fail with any one on (the faults' tests), so they prove the
 * test can see each fault.
 */
const MIXED: ListHistoryOptions = { responseCache: true, focus: 3, maxSteps: 600 };
const MIXED_RUN = { seed: 20_261_127, numRuns: 25 };

describe('list answers after random histories are the reference answers, byte for byte', () => {
  it('every list endpoint has write generators', () => {
    expect(LIST_ENDPOINT_IDS.filter((id) => !LIST_WRITES[id])).toEqual([]);
    expect(LIST_ENDPOINT_IDS).toEqual(CONTRACT.filter((e) => e.list).map((e) => e.id));
  });

  for (const responseCache of [true, false]) {
    const mode = responseCache ? 'response cache and remembered list requests on' : 'every answer computed';

    it(`${mode}: histories over a few lists at a time`, async () => {
      const details = await checkListHistories({ ...MIXED, responseCache }, MIXED_RUN);
      expect(details.failed, describeFailure(details)).toBe(false);
    });

    it(`${mode}: each list endpoint alone, and all of them mixed, filling every list`, async () => {
      const stats = newHistoryStats();
      // With the response cache on, in verification mode too: a list handler that records, or a remembered
      // request that resolves otherwise than when remembered, fails the request.
      for (const id of LIST_ENDPOINT_IDS) {
        const details = await checkListHistories(
          { responseCache, verify: responseCache, lists: [id], maxSteps: 300 },
          { seed: 7, numRuns: 2 },
          stats,
        );
        expect(details.failed, describeFailure(details)).toBe(false);
      }
      const mixed = await checkListHistories(
        { responseCache, focus: LIST_ENDPOINT_IDS.length, maxSteps: 2000 },
        { seed: 8, numRuns: 2 },
        stats,
      );
      expect(mixed.failed, describeFailure(mixed)).toBe(false);
      // The writes filled every list (a comparison over empty lists would prove nothing), and the
      // client and session lists beyond the 100 records they sample.
      const thin = LIST_ENDPOINT_IDS.filter((id) => (stats.largest.get(id) ?? 0) < 3);
      expect(thin).toEqual([]);
      expect(stats.largest.get('mqtt.client.list')).toBeGreaterThan(100);
      expect(stats.largest.get('mqtt.session.list')).toBeGreaterThan(100);
      expect(stats.requests).toBeGreaterThan(stats.steps / 3);
    });
  }

  it('envelope B: the same', async () => {
    const details = await checkListHistories({ ...MIXED, envelope: 'B', maxSteps: 500 }, { seed: 9, numRuns: 4 });
    expect(details.failed, describeFailure(details)).toBe(false);
  });
});

describe('each seeded index fault makes the differential test fail', () => {
  for (const fault of LIST_FAULT_NAMES) {
    it(fault, async () => {
      const restore = switchListFaults([fault]);
      try {
        const stats = newHistoryStats();
        const details = await checkListHistories(MIXED, MIXED_RUN, stats);
        expect(details.failed).toBe(true);
        expect(details.errorInstance).toBeInstanceOf(ListAnswerDifference);
        // Shrunk to a history one can read.
        expect(stepsThatRan(details.counterexample![0])).toBeLessThanOrEqual(12);
      } finally {
        restore();
      }
    });
  }
});

describe('the lists whose filtered queries keep their matches (where the direction bug could show)', () => {
  it('are every RecordIndex list whose views are its records, each with descending indexes', async () => {
    const sim = historySim(true);
    // A node with an alarm has its own alarm index (none: a shared empty one, which keeps nothing).
    sim.advance(121_000);
    const keeping: string[] = [];
    for (const id of LIST_ENDPOINT_IDS) {
      const endpoint = CONTRACT.find((e) => e.id === id)!;
      const params = Object.fromEntries(endpoint.params.filter((p) => p.default !== undefined).map((p) => [p.name, p.default]));
      const ctx = { cluster: sim.cluster, node: sim.cluster.nodes.get(1)!, params, endpoint } as unknown as HandlerContext;
      const list: unknown = await HANDLERS[id as keyof typeof HANDLERS](ctx);
      if (!(list instanceof IndexedList) || !list.source.matches) continue;
      expect(list.source.sortedDescending?.[endpoint.list!.sortFields[0]], id).toBeDefined();
      keeping.push(id);
    }
    expect(keeping.sort()).toEqual(
      [
        'cluster.tenant.list',
        'cluster.user.list',
        'cluster.acl.list',
        'cluster.blacklist.list',
        'cluster.schema.list',
        'cluster.topic-rewrite.list',
        'mqtt.auto-subscribe.list',
        'cluster.connector.list',
        'mqtt.subscribe.list',
        'mqtt.slow-subscribe.list',
        'mqtt.flapping-detect.list',
        'mqtt.ban-log.list',
        'mqtt.system-alarm.list',
        'mq9.mail.list',
        'mq9.agent.list',
      ].sort(),
    );
  });
});

describe('the seeded mix of the user report (tenant, user and ACL writes, about 630 list reads)', () => {
  it('gets no answer differing from the reference, with the response cache on and off; with the direction fault back, some', async () => {
    for (const responseCache of [true, false]) {
      const r = await runSeededMix({ seed: 7, ops: 1000, responseCache });
      expect(r.reads).toBeGreaterThan(600);
      expect(r.differing, r.examples.join('\n')).toBe(0);
    }
    const restore = switchListFaults(['sort-direction-remembered']);
    try {
      expect((await runSeededMix({ seed: 7, ops: 1000, responseCache: false })).differing).toBeGreaterThan(0);
    } finally {
      restore();
    }
  });
});
