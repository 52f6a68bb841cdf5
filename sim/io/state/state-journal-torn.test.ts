import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JournaledWrite } from './state-file.ts';
import { encodeJournal, encodeRecord, type JournalRecord } from './state-journal-format.ts';
import { decodeStateFile, loadState } from './state-load.ts';
import { StateKeeper } from './state-keeper.ts';
import { testStateOptions } from './testing/state-options.ts';

/**
 * A crash in the middle of an append leaves the journal cut anywhere inside its last record. Cut at
 * every byte offset of that record (a write, or a virtual-time record), the file must load with the
 * record dropped and every earlier one kept; reopened, the keeper cuts the torn bytes off with a
 * one-line notice and appends after the good records, so the next load sees no damage at all.
 */

const dir = mkdtempSync(join(tmpdir(), 'mqsim-journal-torn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPTIONS = testStateOptions({ seed: '7', nodes: 3, epochMs: 1_795_000_000_000 });

const write = (i: number, source: JournaledWrite['source'], url: string, body: unknown): JournaledWrite => ({
  source,
  at: OPTIONS.epochMs + 1_000 * i,
  node: 1 + (i % 3),
  method: source === 'mqtt' ? 'MQTT' : 'POST',
  url,
  body: JSON.stringify(body),
  status: 200,
  answer: `${i}`.padStart(16, '0'),
});

/** One write of each source, with bodies holding the characters a record must survive (quotes, newlines, non-ASCII). */
const WRITES: JournaledWrite[] = [
  write(1, 'api', '/api/cluster/tenant/create', { tenant_name: 'acme', desc: 'line 1\nline "2" — ü' }),
  write(2, 'control', '/_sim/mq9/mailbox/create', { name: 'inbox.kept', ttl: 3600 }),
  write(3, 'mqtt', 'publish', { topic: 'a/b', payload: 'ß✓', qos: 1, retain: true }),
];

const journal = (records: JournalRecord[]): Buffer => encodeJournal('0.1.0-test', OPTIONS, records);

const LAST_RECORDS: [string, JournalRecord][] = [
  ['a write', { write: write(4, 'api', '/api/cluster/user/create', { tenant: 'acme', username: 'bob', password: 'Secret-1' }) }],
  ['a virtual-time record', { virtual_now: OPTIONS.epochMs + 9_000 }],
];

describe.each(LAST_RECORDS)('a journal cut inside its last record (%s)', (_name, last) => {
  const kept = journal(WRITES.map((w) => ({ write: w })));
  const whole = journal([...WRITES.map((w) => ({ write: w })), last]);
  const lastBytes = encodeRecord(last).length;
  // The sizes agree: the whole journal is the kept one followed by the last record.
  it('is the kept records followed by the last one', () => {
    expect(whole.length).toBe(kept.length + lastBytes);
    expect(whole.subarray(0, kept.length).equals(kept)).toBe(true);
  });

  it('loads at every cut offset with the torn record dropped and the others kept', () => {
    for (let cut = 1; cut < lastBytes; cut++) {
      const loaded = decodeStateFile(whole.subarray(0, kept.length + cut), 'f.state');
      expect(loaded.state.writes, `cut ${cut} of ${lastBytes}`).toEqual(WRITES);
      expect(loaded.goodBytes, `cut ${cut}`).toBe(kept.length);
      expect(loaded.torn, `cut ${cut}`).toMatchObject({ offset: kept.length, bytes: cut });
    }
    // Cut on the record boundaries: nothing torn.
    expect(decodeStateFile(kept, 'f.state').torn).toBeUndefined();
    expect(decodeStateFile(whole, 'f.state').torn).toBeUndefined();
  });

  it('reopens at every cut offset: one notice, the torn bytes cut off, appending resumes after the good records', async () => {
    const next = write(5, 'api', '/api/cluster/tenant/create', { tenant_name: 'after' });
    for (let cut = 1; cut < lastBytes; cut++) {
      const path = join(dir, 'torn.state');
      writeFileSync(path, whole.subarray(0, kept.length + cut));
      const loaded = loadState(path)!;
      const notices: string[] = [];
      const keeper = new StateKeeper({
        path,
        mqsimVersion: '0.1.0-test',
        options: OPTIONS,
        loaded,
        virtualNow: () => next.at,
        onFatal: (e) => expect.fail(`cut ${cut}: ${e.message}`),
        onNotice: (line) => notices.push(line),
        virtualTimeEveryMs: 0,
      });
      await keeper.open();
      await keeper.append(next);
      await keeper.close();
      expect(notices, `cut ${cut}`).toHaveLength(1);
      expect(notices[0]).toMatch(new RegExp(`dropped a torn last record \\(${cut} bytes at byte ${kept.length}: .+\\)`));
      expect(notices[0]).not.toContain('\n');
      const bytes = readFileSync(path);
      expect(bytes.subarray(0, kept.length).equals(kept), `cut ${cut}: the good records are untouched`).toBe(true);
      const again = decodeStateFile(bytes, path);
      expect(again.torn, `cut ${cut}`).toBeUndefined();
      expect(again.state.writes, `cut ${cut}`).toEqual([...WRITES, next]);
    }
  });
});
