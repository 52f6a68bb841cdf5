import { describe, expect, it } from 'vitest';
import { RunOrder, runLanes } from './run-order.ts';

const tick = () => new Promise((r) => setImmediate(r));

describe('RunOrder', () => {
  it('puts what slots made at once back in slot order, keeping each slot its own order, after what came before', async () => {
    const order = new RunOrder();
    const made: { name: string }[] = [];
    const make = (name: string) => {
      const item = { name };
      order.mark(item);
      made.push(item);
    };
    make('before');
    // Slot 1 starts first and interleaves with slot 0.
    await Promise.all([
      order.inSlot(1, async () => {
        make('b1');
        await tick();
        make('b2');
      }),
      order.inSlot(0, async () => {
        await tick();
        make('a1');
        await tick();
        make('a2');
      }),
    ]);
    order.endPhase([]);
    make('after');
    expect(made.map((m) => m.name)).not.toEqual(['before', 'a1', 'a2', 'b1', 'b2', 'after']);
    expect(order.sort(made).map((m) => m.name)).toEqual(['before', 'a1', 'a2', 'b1', 'b2', 'after']);
  });

  it('keeps notes of slots apart until their phase ends, then adds them in slot order', async () => {
    const order = new RunOrder();
    const main = ['first'];
    await Promise.all([
      order.inSlot(2, async () => void order.notes(main).push('from 2')),
      order.inSlot(0, async () => {
        await tick();
        order.notes(main).push('from 0');
      }),
    ]);
    expect(main).toEqual(['first']);
    order.endPhase(main);
    order.notes(main).push('last');
    expect(main).toEqual(['first', 'from 0', 'from 2', 'last']);
  });
});

describe('runLanes', () => {
  it('runs at most `concurrency` lanes at once and every lane once', async () => {
    let running = 0;
    let most = 0;
    const ran: number[] = [];
    const lane = (i: number) => async () => {
      running++;
      most = Math.max(most, running);
      await tick();
      ran.push(i);
      running--;
    };
    await runLanes([0, 1, 2, 3, 4].map(lane), 2);
    expect(most).toBe(2);
    expect([...ran].sort()).toEqual([0, 1, 2, 3, 4]);
    most = 0;
    await runLanes([0, 1, 2].map(lane), 1);
    expect(most).toBe(1);
  });
});
