import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startClusterServer, type RunningCluster } from '../serve/cluster-server.ts';
import { openJournalFile, type OpenJournalFile } from './journal-file.ts';
import { StateKeeper } from './state-keeper.ts';
import { loadState } from './state-load.ts';
import { testStateOptions } from './testing/state-options.ts';

/**
 * The served cluster with a journal whose fsyncs the test holds and releases: an API write and a
 * control-interface write are answered only after their record's fsync returned, and a failed fsync
 * is never answered as a success (the connection is closed without an answer).
 */

const dir = mkdtempSync(join(tmpdir(), 'mqsim-durable-answers-'));
const running: RunningCluster[] = [];
afterAll(async () => {
  for (const r of running) await r.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A file layer whose fsyncs wait for `release()`; `failNext` makes the next one fail. */
function heldSyncs(): { open: OpenJournalFile; release: () => void; failNext: () => void; waiting: () => number } {
  let waiting: { resolve: () => void; reject: (e: Error) => void }[] = [];
  let fail = false;
  const open: OpenJournalFile = async (path) => {
    const real = await openJournalFile(path);
    return {
      append: (b) => real.append(b),
      sync: () =>
        new Promise<void>((resolve, reject) => waiting.push({ resolve, reject })).then(() => {
          if (fail) throw new Error('EIO: injected');
          return real.sync();
        }),
      close: () => real.close(),
    };
  };
  const release = (): void => {
    const now = waiting;
    waiting = [];
    for (const w of now) w.resolve();
  };
  return { open, release, failNext: () => (fail = true), waiting: () => waiting.length };
}

async function serveWithJournal(name: string, file: ReturnType<typeof heldSyncs>, fatal: Error[]): Promise<RunningCluster> {
  const path = join(dir, name);
  const now = { get: (): number => 0 };
  const keeper = new StateKeeper({
    path,
    mqsimVersion: 'test',
    options: testStateOptions(),
    virtualNow: () => now.get(),
    onFatal: (e) => fatal.push(e),
    openFile: file.open,
    virtualTimeEveryMs: 0,
  });
  const server = await startClusterServer({
    port: 0,
    nodes: 1,
    workload: 'none',
    seed: '1',
    epochMs: Date.UTC(2026, 0, 1),
    control: true,
    onModelWrite: (w) => keeper.append(w),
    durableOutput: keeper,
  });
  running.push(server);
  now.get = () => server.cluster.now();
  await keeper.open();
  return server;
}

const post = (url: string, body: unknown): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setTimeout(r, 150));
  return done;
};

describe('answers wait for the journal', () => {
  it('an API write and a control write are answered only once their record is fsynced', async () => {
    const file = heldSyncs();
    const server = await serveWithJournal('held.state', file, []);
    const api = post(`${server.baseUrl}/api/cluster/tenant/create`, { tenant_name: 'held' });
    await expect.poll(() => file.waiting(), { timeout: 10_000 }).toBe(1); // the record's fsync has started
    expect(await settled(api)).toBe(false);
    file.release();
    expect(((await (await api).json()) as { code: number }).code).toBe(0);
    expect(loadState(join(dir, 'held.state'))!.state.writes.map((w) => w.url)).toEqual(['/api/cluster/tenant/create']);

    const control = post(`${server.baseUrl}/_sim/mq9/mailbox/create`, { name: 'inbox.held', ttl: 60 });
    await expect.poll(() => file.waiting(), { timeout: 10_000 }).toBe(1);
    expect(await settled(control)).toBe(false);
    file.release();
    expect(((await (await control).json()) as { code: number }).code).toBe(0);
    // A read changes nothing and waits for nothing.
    expect((await fetch(`${server.baseUrl}/api/cluster/tenant/list?tenant_name=held`)).status).toBe(200);
  });

  it('a failed fsync is not answered at all, and the journal owner is told', async () => {
    const file = heldSyncs();
    const fatal: Error[] = [];
    const server = await serveWithJournal('failing.state', file, fatal);
    const api = post(`${server.baseUrl}/api/cluster/tenant/create`, { tenant_name: 'lost' });
    await expect.poll(() => file.waiting(), { timeout: 10_000 }).toBe(1);
    expect(await settled(api)).toBe(false);
    file.failNext();
    file.release();
    await expect(api).rejects.toThrow(/fetch failed/);
    expect(fatal).toHaveLength(1);
    expect(fatal[0].message).toMatch(/could not make the state journal .* durable: EIO: injected/);
  });
});
