import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe, stopAll, type ServedProcess } from './testing/serve-process.ts';
import { blobPath, metaPath, readMeta } from './checkpoint/checkpoint-files.ts';

/**
 * `mqsim serve --state FILE` with checkpoints, through the real CLI: a checkpoint is made (SIGUSR2
 * asks for one), a restart is served by a process restored from it and answers as the run did, a
 * kill -9 of the serve the user started leaves no server behind, and a damaged checkpoint is
 * removed with one line and the whole journal replayed instead.
 */
const dir = mkdtempSync(join(tmpdir(), 'mqsim-serve-checkpoint-'));
const state = join(dir, 'run.state');
afterAll(() => {
  stopAll();
  rmSync(dir, { recursive: true, force: true });
});

const ARGS = ['--state', state, '--workload', 'none', '--nodes', '1', '--control'];

async function post(url: string, body: unknown): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.text();
}

const tenants = async (s: ServedProcess): Promise<string[]> => {
  const body = (await (await fetch(`${s.url}/api/cluster/tenant/list`)).json()) as { data: { data: { tenant_name: string }[] } };
  return body.data.data.map((t) => t.tenant_name).sort();
};

async function stop(s: ServedProcess): Promise<number | null> {
  s.child.kill('SIGTERM');
  return s.exit;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('mqsim serve --state with a checkpoint', () => {
  it('restarts from it, serves as the run did, dies with its parent, and drops a damaged one', async () => {
    const first = await startServe(ARGS);
    for (const name of ['ck-a', 'ck-b'])
      expect(await post(`${first.url}/api/cluster/tenant/create`, { tenant_name: name })).toContain('"code":0');
    await post(`${first.url}/_sim/clock/advance`, { ms: 2 * 3_600_000 });
    expect(await post(`${first.url}/api/cluster/tenant/create`, { tenant_name: 'ck-c' })).toContain('"code":0');
    // SIGUSR2 asks for a checkpoint; one the timer started already (the clock moved 2 h) may cover fewer writes.
    for (let i = 0; i < 1200 && (readMeta(state)?.writes ?? 0) < 4; i++) {
      if (i % 20 === 0) first.child.kill('SIGUSR2');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(readMeta(state)?.writes).toBe(4);
    expect(await post(`${first.url}/api/cluster/tenant/create`, { tenant_name: 'ck-d' })).toContain('"code":0');
    const names = await tenants(first);
    expect(await stop(first)).toBe(0);

    const restored = await startServe(ARGS);
    expect(restored.stderr()).toMatch(/resumed 5 write\(s\) up to .* from the checkpoint at write 4/);
    expect(await tenants(restored)).toEqual(names);
    // The lock names the serve started and the process restored from the checkpoint.
    const pids = readFileSync(`${state}.lock`, 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    restored.child.kill('SIGKILL');
    await restored.exit;
    for (let i = 0; i < 50 && alive(pids[1]); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pids[1])).toBe(false);
    await expect(fetch(`${restored.url}/api/cluster/tenant/list`)).rejects.toThrow();

    // A snapshot of another build under this description (as a crash between the two renames could leave).
    const meta = readMeta(state)!;
    const journal = readFileSync(state);
    const damagedBlob = readFileSync(blobPath(state));
    damagedBlob[damagedBlob.length >> 1] ^= 0xff;
    writeFileSync(metaPath(state), JSON.stringify({ ...meta, buildId: 'another-build' }));
    const replayed = await startServe(ARGS);
    expect(replayed.stderr()).toMatch(/the checkpoint of .* could not be used; it is removed, replaying the whole journal/);
    expect(replayed.stderr()).not.toMatch(/from the checkpoint/);
    expect(await tenants(replayed)).toEqual(names);
    expect(existsSync(metaPath(state))).toBe(false);
    expect(await stop(replayed)).toBe(0);

    // A damaged snapshot (same size): its hash is checked while the restored process starts.
    writeFileSync(blobPath(state), damagedBlob);
    writeFileSync(metaPath(state), JSON.stringify(meta));
    writeFileSync(state, journal);
    const again = await startServe(ARGS);
    expect(again.stderr()).toMatch(/the checkpoint of .* could not be used; it is removed, replaying the whole journal/);
    expect(await tenants(again)).toEqual(names);
    expect(await stop(again)).toBe(0);
  }, 240_000);
});
