import { describe, expect, it } from 'vitest';
import { encodeState, StateFileError, type JournaledWrite } from './state-file.ts';
import { decodeJournal, encodeJournal, encodeRecord, JOURNAL_HEADER, type JournalRecord } from './state-journal-format.ts';
import { decodeStateFile } from './state-load.ts';
import { testStateOptions } from './testing/state-options.ts';

const EPOCH = Date.UTC(2026, 0, 1);
const OPTIONS = testStateOptions({ nodes: 3, epochMs: EPOCH });
const write = (i: number, name = `t${i}`): JournaledWrite => ({
  source: 'api',
  at: EPOCH + 10 * i,
  node: 1,
  method: 'POST',
  url: '/api/cluster/tenant/create',
  body: JSON.stringify({ tenant_name: name }),
  status: 200,
  answer: '0123456789abcdef',
});
const RECORDS: JournalRecord[] = [
  { write: write(1, 'é-ünïcode') },
  { write: write(2) },
  { virtual_now: EPOCH + 5_000 },
  { write: write(3) },
];
const FILE = encodeJournal('0.1.0', OPTIONS, RECORDS);
/** Where the last record starts. */
const LAST = FILE.length - encodeRecord(RECORDS[RECORDS.length - 1]).length;

describe('state journal format (format 2)', () => {
  it('round-trips the options, the writes (non-ASCII included: lengths are in bytes) and the virtual time reached', () => {
    const { state, goodBytes, torn } = decodeJournal(FILE, 'f');
    expect(state.options).toEqual(OPTIONS);
    expect(state.writes).toEqual([write(1, 'é-ünïcode'), write(2), write(3)]);
    expect(state.virtualNow).toBe(EPOCH + 5_000);
    expect(goodBytes).toBe(FILE.length);
    expect(torn).toBeUndefined();
  });

  it('starts with the magic and the format, then one line per record with its length and crc32', () => {
    const text = FILE.toString('utf8');
    expect(text.startsWith(JOURNAL_HEADER)).toBe(true);
    expect(text.split('\n')[1]).toMatch(/^[0-9a-f]{8} [0-9a-f]{8} \{"run":/);
    expect(text.split('\n')).toHaveLength(2 + RECORDS.length + 1);
  });

  it('a virtual time reached is at least the last write', () => {
    const file = encodeJournal('0.1.0', OPTIONS, [{ virtual_now: EPOCH + 1 }, { write: write(7) }]);
    expect(decodeJournal(file, 'f').state.virtualNow).toBe(write(7).at);
  });

  it('drops the last record cut at every byte offset (a write never acknowledged) and keeps the rest', () => {
    for (let cut = LAST + 1; cut < FILE.length; cut++) {
      const { state, goodBytes, torn } = decodeJournal(FILE.subarray(0, cut), 'f');
      expect(goodBytes, `cut at ${cut}`).toBe(LAST);
      expect(torn?.bytes, `cut at ${cut}`).toBe(cut - LAST);
      expect(state.writes.map((w) => w.at)).toEqual([write(1).at, write(2).at]);
    }
  });

  it('drops a last record whose checksum fails, or zeros left at the end by a crash', () => {
    const flipped = Buffer.from(FILE);
    flipped[FILE.length - 5] ^= 0x01;
    expect(decodeJournal(flipped, 'f').torn).toMatchObject({ offset: LAST, why: 'its checksum does not match' });
    const zeros = Buffer.concat([FILE.subarray(0, LAST), Buffer.alloc(300)]);
    expect(decodeJournal(zeros, 'f')).toMatchObject({ goodBytes: LAST, torn: { bytes: 300 } });
  });

  it('refuses a flipped byte in any record before the last, wherever it is (length, checksum or payload)', () => {
    const second = FILE.indexOf('\n', JOURNAL_HEADER.length) + 1;
    const third = FILE.indexOf('\n', second) + 1;
    for (let at = second; at < third; at += 7) {
      const bad = Buffer.from(FILE);
      bad[at] ^= 0x04;
      expect(() => decodeJournal(bad, 'f'), `byte ${at}`).toThrow(StateFileError);
      expect(() => decodeJournal(bad, 'f'), `byte ${at}`).toThrow(/is damaged: record 2 .* good records follow it/);
    }
  });

  it.each([
    ['header only', (b: Buffer) => b.subarray(0, JOURNAL_HEADER.length), /ends after its header/],
    ['the run record cut short', (b: Buffer) => b.subarray(0, JOURNAL_HEADER.length + 30), /ends inside its first record/],
    [
      'a damaged header',
      (b: Buffer) => Buffer.concat([Buffer.from('MQSIM-SERVE-STATE 2 x\n'), b.subarray(JOURNAL_HEADER.length)]),
      /damaged/,
    ],
    [
      'a write first',
      () => Buffer.concat([Buffer.from(JOURNAL_HEADER), encodeRecord({ write: write(1) })]),
      /its first record is not the run record/,
    ],
    [
      'writes going back in time',
      () => encodeJournal('0.1.0', OPTIONS, [{ write: write(2) }, { write: write(1) }, { virtual_now: EPOCH }]),
      /write 2 goes back in virtual time/,
    ],
    ['an unknown record', () => encodeJournal('0.1.0', OPTIONS, [{ other: 1 } as never, { virtual_now: EPOCH }]), /record 2 is neither/],
  ])('refuses %s', (_name, make, message) => {
    expect(() => decodeJournal(make(FILE), 'f')).toThrow(message);
  });
});

describe('reading either format', () => {
  it('reads format 1 (older mqsim) as it was', () => {
    const v1 = Buffer.from(encodeState({ mqsimVersion: '0.0.9', options: OPTIONS, virtualNow: EPOCH + 99, writes: [write(1)] }));
    expect(decodeStateFile(v1, 'f')).toMatchObject({ format: 1, state: { virtualNow: EPOCH + 99, writes: [write(1)] } });
  });

  it('refuses a newer format and foreign files', () => {
    expect(() => decodeStateFile(Buffer.from('MQSIM-SERVE-STATE 3\n'), 'f')).toThrow(
      /newer mqsim \(state format 3; this mqsim reads format 2\)/,
    );
    expect(() => decodeStateFile(Buffer.from('{"name":"x"}\n'), 'f')).toThrow(/some other JSON/);
    expect(() => decodeStateFile(Buffer.from([0x7f, 0x45, 0x4c, 0x46]), 'f')).toThrow(/not an mqsim serve state file/);
  });
});
