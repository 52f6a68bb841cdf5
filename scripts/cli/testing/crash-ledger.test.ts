import { describe, expect, it } from 'vitest';
import { CrashLedger } from './crash-ledger.ts';
import { ABSENT, PRESENT, type Presence, type ServerView, type Step } from './crash-steps.ts';

/** The judge of the crash torture catches each kind of failure it reports (else the torture proves nothing). */

/** A step whose presence the test sets by hand before each check. */
function step(label: string, overwrite = false): Step & { now: Presence } {
  const s = {
    label,
    now: ABSENT as Presence,
    run: async () => 'success',
    presence: async () => s.now,
    ...(overwrite ? { overwrite: true as const } : {}),
  };
  return s;
}
const view = {} as ServerView;

describe('CrashLedger', () => {
  it('counts an acknowledged write missing after a restart as lost, once', async () => {
    const ledger = new CrashLedger();
    const a = step('a');
    ledger.begin('w', 1, a).acked('success');
    expect(await ledger.check(view, 2)).toBe(1);
    expect(await ledger.check(view, 3)).toBe(0);
    expect(ledger.tally.lost).toEqual(['w: a (written in life 1, checked in life 2)']);
    expect(ledger.tally.acknowledged).toBe(1);
  });

  it('accepts an unanswered write present or absent, then holds it to what the first restart showed', async () => {
    const ledger = new CrashLedger();
    const kept = step('kept');
    const dropped = step('dropped');
    ledger.begin('w1', 1, kept).unanswered();
    ledger.begin('w2', 1, dropped).unanswered();
    kept.now = PRESENT;
    await ledger.check(view, 2);
    expect([ledger.tally.unansweredKept, ledger.tally.unansweredDropped, ledger.tally.unstable]).toEqual([1, 1, []]);
    kept.now = ABSENT;
    dropped.now = PRESENT;
    await ledger.check(view, 3);
    expect(ledger.tally.unstable).toHaveLength(2);
  });

  it('lets a dropped overwrite look present once a later one raised the value', async () => {
    const ledger = new CrashLedger();
    const set = step('set 1', true);
    ledger.begin('w', 1, set).unanswered();
    await ledger.check(view, 2);
    set.now = PRESENT;
    await ledger.check(view, 3);
    expect(ledger.tally.unstable).toEqual([]);
  });

  it('reports a half-applied write, answered or not', async () => {
    const ledger = new CrashLedger();
    const s = step('user create');
    s.now = { state: 'partial', why: 'is_superuser is false, written true' };
    ledger.begin('w', 1, s).unanswered();
    await ledger.check(view, 2);
    expect(ledger.tally.halfApplied).toEqual([
      'w: user create (written in life 1, checked in life 2): is_superuser is false, written true',
    ]);
  });

  it("reports a writer's later write there while an earlier one of the same life is missing", async () => {
    const ledger = new CrashLedger();
    const first = step('first');
    const second = step('second');
    second.now = PRESENT;
    ledger.begin('w', 1, first).unanswered();
    ledger.begin('w', 1, second).unanswered();
    await ledger.check(view, 2);
    await ledger.check(view, 3);
    expect(ledger.tally.outOfOrder).toEqual(['w: second is there but the earlier first is not']);
  });

  it('takes no overwrite as a witness of order (a later life raised its value)', async () => {
    const ledger = new CrashLedger();
    const create = step('create');
    const set = step('set 1', true);
    set.now = PRESENT;
    ledger.begin('w', 1, create).unanswered();
    ledger.begin('w', 1, set).unanswered();
    await ledger.check(view, 2);
    expect(ledger.tally.outOfOrder).toEqual([]);
  });

  it('holds a write answered with a failure to staying absent, and leaves it out of the order', async () => {
    const ledger = new CrashLedger();
    const refused = step('bind');
    const later = step('later');
    later.now = PRESENT;
    ledger.begin('w', 1, refused).failed('code 1');
    ledger.begin('w', 1, later).acked('success');
    await ledger.check(view, 2);
    expect(ledger.tally.outOfOrder).toEqual([]);
    expect(ledger.tally.failedAnswers).toEqual(['w: bind: code 1']);
    refused.now = PRESENT;
    await ledger.check(view, 3);
    expect(ledger.tally.unstable).toHaveLength(1);
  });
});
