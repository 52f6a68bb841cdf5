import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe, stopAll, type ServedProcess } from './testing/serve-process.ts';

/**
 * `mqsim serve --state FILE` on a journal whose last record a crash cut short, through the real CLI:
 * at a few cut offsets of that record (inside its prefix, in the middle of its payload, just before
 * its newline), the server starts, says in one line that it dropped the torn record,
 * serves every earlier write, and the next start finds nothing to drop. Every offset is covered at
 * the library level (sim/io/state/state-journal-torn.test.ts).
 */

const dir = mkdtempSync(join(tmpdir(), 'mqsim-state-torn-'));
afterAll(() => {
  stopAll();
  rmSync(dir, { recursive: true, force: true });
});

async function stop(s: ServedProcess): Promise<void> {
  s.child.kill('SIGTERM');
  expect(await s.exit).toBe(0);
}

const post = async (s: ServedProcess, path: string, body: unknown): Promise<any> =>
  (await fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
async function tenants(s: ServedProcess): Promise<string[]> {
  const answer: any = await (await fetch(`${s.url}/api/cluster/tenant/list?tenant_name=torn-&limit=100`)).json();
  return answer.data.data.map((t: any) => t.tenant_name).sort();
}

/** Record lines of a journal (after its header line): each ends with a newline; payload after an 18-byte prefix. */
function recordLines(bytes: Buffer): { start: number; end: number; payload: string }[] {
  const lines: { start: number; end: number; payload: string }[] = [];
  for (let start = bytes.indexOf(0x0a) + 1; start < bytes.length;) {
    const end = bytes.indexOf(0x0a, start) + 1;
    lines.push({ start, end, payload: bytes.toString('utf8', start + 18, end - 1) });
    start = end;
  }
  return lines;
}

describe('mqsim serve --state with a torn last record', () => {
  it('starts at every cut offset tried, drops the torn write with a one-line message, and resumes the others', async () => {
    const made = join(dir, 'made.state');
    const first = await startServe(['--workload', 'none', '--nodes', '1', '--state', made]);
    for (const name of ['torn-a', 'torn-b', 'torn-c'])
      expect((await post(first, '/api/cluster/tenant/create', { tenant_name: name })).code).toBe(0);
    await stop(first);

    // The journal up to the last write (the records after it only note virtual time): a crash during
    // the append of torn-c's record leaves a prefix of these bytes.
    const bytes = readFileSync(made);
    const lines = recordLines(bytes);
    const last = lines.filter((l) => l.payload.startsWith('{"write"')).at(-1)!;
    expect(last.payload).toContain('torn-c');
    const length = last.end - last.start;
    const cuts = [17, Math.floor(length / 2), length - 1];
    for (const cut of cuts) {
      const file = join(dir, `cut-${cut}.state`);
      writeFileSync(file, bytes.subarray(0, last.start + cut));
      const s = await startServe(['--state', file]);
      const dropped = s
        .stderr()
        .split('\n')
        .filter((l) => /dropped a torn/.test(l));
      expect(dropped, `cut ${cut}: ${s.stderr()}`).toHaveLength(1);
      expect(dropped[0]).toMatch(new RegExp(`^mqsim serve: .*dropped a torn last record \\(${cut} bytes at byte ${last.start}: .+\\)`));
      expect(s.stderr()).toMatch(/resumed 2 write\(s\)/);
      expect(await tenants(s), `cut ${cut}`).toEqual(['torn-a', 'torn-b']);
      await stop(s);
    }
    // The torn bytes were cut off: the next start has nothing to drop, and the file is whole again.
    const again = await startServe(['--state', join(dir, `cut-${cuts.at(-1)}.state`)]);
    expect(again.stderr()).not.toMatch(/dropped/);
    expect(await tenants(again)).toEqual(['torn-a', 'torn-b']);
    await stop(again);
  }, 120_000);
});
