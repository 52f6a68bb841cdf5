import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeState, type JournaledWrite } from './state-file.ts';
import { openJournalFile, type JournalFile, type OpenJournalFile } from './journal-file.ts';
import { StateKeeper } from './state-keeper.ts';
import { loadState } from './state-load.ts';
import { testStateOptions } from './testing/state-options.ts';

const dir = mkdtempSync(join(tmpdir(), 'mqsim-keeper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EPOCH = Date.UTC(2026, 0, 1);
const OPTIONS = testStateOptions({ epochMs: EPOCH });
const write = (i: number): JournaledWrite => ({
  source: 'api',
  at: EPOCH + i,
  node: 1,
  method: 'POST',
  url: '/api/cluster/tenant/create',
  body: JSON.stringify({ tenant_name: `t${i}` }),
  status: 200,
  answer: '0123456789abcdef',
});

/** The real file with a layer in between that counts fsyncs and reads the file as each one completes. */
function countingFile(path: string, failSyncNumber?: number): { open: OpenJournalFile; syncs: () => number; durableWrites: () => number } {
  let syncs = 0;
  let durableWrites = 0;
  const open: OpenJournalFile = async (p) => {
    const real: JournalFile = await openJournalFile(p);
    return {
      append: (bytes) => real.append(bytes),
      async sync() {
        await new Promise((r) => setTimeout(r, 5)); // a slow disk: writes pile up behind the fsync
        if (++syncs === failSyncNumber) throw new Error('EIO: i/o error');
        await real.sync();
        durableWrites = loadState(path)!.state.writes.length;
      },
      close: () => real.close(),
    };
  };
  return { open, syncs: () => syncs, durableWrites: () => durableWrites };
}

const keeperFor = (path: string, extra: Partial<ConstructorParameters<typeof StateKeeper>[0]> = {}): StateKeeper =>
  new StateKeeper({
    path,
    mqsimVersion: 'test',
    options: OPTIONS,
    virtualNow: () => EPOCH + 1_000_000,
    onFatal: () => {},
    virtualTimeEveryMs: 0,
    ...extra,
  });

describe('StateKeeper (group commit)', () => {
  it('acknowledges every write only once its record is durable, with far fewer fsyncs than writes', async () => {
    const path = join(dir, 'group.state');
    const fs = countingFile(path);
    const keeper = keeperFor(path, { openFile: fs.open });
    await keeper.open();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const seenAtAck: number[] = [];
    const writes = 200;
    let clock = 0;
    await Promise.all(
      Array.from({ length: writes }, (_, i) =>
        (async () => {
          // Concurrent clients: each journals a write, some after waiting a little.
          await new Promise((r) => setTimeout(r, i % 20));
          await keeper.append({ ...write(i), at: EPOCH + ++clock });
          seenAtAck[i] = fs.durableWrites();
        })(),
      ),
    );
    const order = loadState(path)!.state.writes.map((w) => Number(/t(\d+)/.exec(w.body!)![1]));
    expect(order).toHaveLength(writes);
    // Each acknowledgement came when the file (read at its fsync) held that write already.
    for (let i = 0; i < writes; i++) expect(seenAtAck[i], `write ${i}`).toBeGreaterThan(order.indexOf(i));
    expect(fs.syncs()).toBeLessThan(writes / 4);
    expect(keeper.fsyncCount).toBe(fs.syncs());
    await keeper.close();
    expect(loadState(path)!.state.virtualNow).toBe(EPOCH + 1_000_000);
  });

  it('a failed fsync is never acknowledged: waiting writes fail, later ones too, and the owner is told once', async () => {
    const path = join(dir, 'failing.state');
    const fs = countingFile(path, 2);
    const fatal: Error[] = [];
    const keeper = keeperFor(path, { openFile: fs.open, onFatal: (e) => fatal.push(e) });
    await keeper.open();
    await keeper.append(write(1));
    const outcomes = await Promise.allSettled([keeper.append(write(2)), keeper.append(write(3))]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    await expect(keeper.append(write(4))).rejects.toThrow(/could not make the state journal .* durable: EIO/);
    expect(fatal).toHaveLength(1);
    expect(fatal[0].message).toMatch(/EIO: i\/o error/);
  });

  it('answers wait for the file to be opened (after the replay), then go out', async () => {
    const path = join(dir, 'late.state');
    const keeper = keeperFor(path);
    let acked = false;
    const pending = keeper.append(write(1)).then(() => (acked = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(acked).toBe(false);
    await keeper.open();
    await pending;
    await keeper.close();
    expect(loadState(path)!.state.writes).toEqual([write(1)]);
  });

  it('cuts a torn last record off when it opens, and appends after the good ones', async () => {
    const path = join(dir, 'torn.state');
    const first = keeperFor(path);
    await first.open();
    await Promise.all([first.append(write(1)), first.append(write(2))]);
    await first.close();
    const whole = readFileSync(path);
    appendFileSync(path, whole.subarray(whole.length - 40, whole.length - 3)); // half a record, as a crash leaves it
    const loaded = loadState(path)!;
    expect(loaded.torn?.bytes).toBe(37);
    const notices: string[] = [];
    const second = keeperFor(path, { loaded, onNotice: (l) => notices.push(l) });
    await second.open();
    expect(notices[0]).toMatch(/dropped a torn last record \(37 bytes/);
    await second.append(write(3));
    await second.close();
    expect(loadState(path)!.state.writes.map((w) => w.at - EPOCH)).toEqual([1, 2, 3]);
  });

  it('converts a format-1 file into a journal when it opens, keeping its writes and virtual time', async () => {
    const path = join(dir, 'v1.state');
    writeFileSync(path, encodeState({ mqsimVersion: 'old', options: OPTIONS, virtualNow: EPOCH + 500, writes: [write(1), write(2)] }));
    const loaded = loadState(path)!;
    expect(loaded.format).toBe(1);
    const notices: string[] = [];
    const keeper = keeperFor(path, { loaded, onNotice: (l) => notices.push(l), virtualNow: () => EPOCH + 600 });
    await keeper.open();
    expect(notices[0]).toMatch(/converted .* from state format 1/);
    await keeper.append(write(3));
    await keeper.close();
    const again = loadState(path)!;
    expect(again.format).toBe(2);
    expect(again.state.options).toEqual(OPTIONS);
    expect(again.state.writes.map((w) => w.at - EPOCH)).toEqual([1, 2, 3]);
    expect(again.state.virtualNow).toBe(EPOCH + 600);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
