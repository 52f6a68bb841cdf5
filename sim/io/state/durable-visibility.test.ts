import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startClusterServer } from '../serve/cluster-server.ts';
import { openJournalFile, type OpenJournalFile } from './journal-file.ts';
import { StateKeeper } from './state-keeper.ts';
import { loadState } from './state-load.ts';
import { testStateOptions } from './testing/state-options.ts';

/**
 * No HTTP answer tells a client about a write that is not durable yet: not the write's own answer,
 * nor another client's answer that saw it (a duplicate create refused because of it, a list showing
 * it). Otherwise a kill -9 between that answer and the fsync leaves the client having been told
 * "exists" about something the restarted server never had.
 */

const dir = mkdtempSync(join(tmpdir(), 'mqsim-durable-answers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPTIONS = testStateOptions();

/** The real journal file, except that appends and fsyncs wait until the test lets the disk go on. */
function heldDisk(): { open: OpenJournalFile; release(): void } {
  let release!: () => void;
  const free = new Promise<void>((r) => (release = r));
  const open: OpenJournalFile = async (path) => {
    const real = await openJournalFile(path);
    return {
      append: async (bytes) => (await free, real.append(bytes)),
      sync: async () => (await free, real.sync()),
      close: () => real.close(),
    };
  };
  return { open, release };
}

const pending = Symbol('pending');
/** What `p` has settled with after `ms`, or `pending`. */
const after = <T>(p: Promise<T>, ms: number): Promise<T | typeof pending> =>
  Promise.race([p, new Promise<typeof pending>((r) => setTimeout(() => r(pending), ms))]);

describe('answers under the state journal', () => {
  it('wait until every write journaled before them is durable, reads and refusals included', async () => {
    const path = join(dir, 'held.state');
    const disk = heldDisk();
    const keeper = new StateKeeper({
      path,
      mqsimVersion: 'test',
      options: OPTIONS,
      virtualNow: () => OPTIONS.epochMs,
      onFatal: (e) => expect.fail(e.message),
      openFile: disk.open,
      virtualTimeEveryMs: 0,
    });
    const running = await startClusterServer({
      seed: '1',
      nodes: 1,
      port: 0,
      workload: 'none',
      epochMs: OPTIONS.epochMs,
      onModelWrite: (w) => keeper.append(w),
      durableOutput: keeper,
    });
    try {
      await keeper.open();
      const url = running.nodeUrls[0];
      const post = (body: unknown): Promise<any> =>
        fetch(`${url}/api/cluster/tenant/create`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then((r) => r.json());
      const list = (): Promise<any> => fetch(`${url}/api/cluster/tenant/list?tenant_name=held`).then((r) => r.json());

      const create = post({ tenant_name: 'held' });
      await new Promise((r) => setTimeout(r, 50)); // the model has taken the create; its record waits for the disk
      const duplicate = post({ tenant_name: 'held' });
      const read = list();
      expect(await after(create, 200)).toBe(pending);
      expect(await after(duplicate, 0), 'a refusal that saw the create').toBe(pending);
      expect(await after(read, 0), 'a list that saw the create').toBe(pending);
      // A crash now: the file does not hold the create, and no client has heard of it.
      expect(loadState(path)!.state.writes).toEqual([]);

      disk.release();
      expect((await create).code).toBe(0);
      expect((await duplicate).code).not.toBe(0);
      expect((await read).data.total_count).toBe(1);
      expect(loadState(path)!.state.writes.map((w) => w.url)).toEqual(['/api/cluster/tenant/create']);
    } finally {
      disk.release();
      await running.close();
      await keeper.close();
    }
  });
});
