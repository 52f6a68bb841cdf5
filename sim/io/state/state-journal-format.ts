import { crc32 } from 'node:zlib';
import { isRecord } from '../../model/api/json-guards.ts';
import {
  checkOptions,
  checkWrite,
  refusal,
  STATE_FORMAT_VERSION,
  STATE_MAGIC,
  StateFileError,
  type JournaledWrite,
  type ServeState,
  type ServeStateOptions,
} from './state-file.ts';

/**
 * State format 2, the write-ahead journal of `mqsim serve --state FILE`: one header line, then
 * append-only records, one per line.
 *
 *   MQSIM-SERVE-STATE 2\n
 *   <payload bytes, 8 hex digits> <crc32 of the payload, 8 hex digits> <payload>\n   (a record)
 *
 * The payload is JSON (which never holds a raw newline), one of:
 *   {"run":{"mqsim_version":…,"options":{…}}}   first, exactly once: what decides the model
 *   {"write":{…}}                               a journaled model write (JournaledWrite)
 *   {"virtual_now":…}                           the virtual time the run had reached (Unix ms)
 *
 * Each record is length-prefixed and checksummed (crc32 of node:zlib), so a record cut short by a
 * crash in the middle of an append, or damaged, is told from a good one. A bad LAST record is a write
 * that was never acknowledged (answers wait for their record to be on disk): it is dropped. A bad
 * record with good ones after it is damage, and the file is refused.
 */
export const JOURNAL_HEADER = `${STATE_MAGIC} ${STATE_FORMAT_VERSION}\n`;

/** One record of the journal. */
export type JournalRecord =
  { run: { mqsim_version: string; options: ServeStateOptions } } | { write: JournaledWrite } | { virtual_now: number };

/** Bytes before a record's payload: length, space, checksum, space. */
const PREFIX_BYTES = 18;
const NEWLINE = 0x0a;

/** The bytes of one record, newline included. */
export function encodeRecord(record: JournalRecord): Buffer {
  const payload = Buffer.from(JSON.stringify(record));
  const prefix = `${hex8(payload.length)} ${hex8(crc32(payload))} `;
  const bytes = Buffer.allocUnsafe(PREFIX_BYTES + payload.length + 1);
  bytes.write(prefix, 0, 'latin1');
  payload.copy(bytes, PREFIX_BYTES);
  bytes[bytes.length - 1] = NEWLINE;
  return bytes;
}

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

/** A whole journal: header, run record, then these records (tests and format-1 conversion). */
export function encodeJournal(mqsimVersion: string, options: ServeStateOptions, records: readonly JournalRecord[]): Buffer {
  return Buffer.concat([
    Buffer.from(JOURNAL_HEADER),
    encodeRecord({ run: { mqsim_version: mqsimVersion, options } }),
    ...records.map(encodeRecord),
  ]);
}

/** The record at `pos`: its payload and where the next one starts, or why it is not a good record. */
type ReadRecord = { ok: true; payload: Buffer; next: number } | { ok: false; why: string };

function readRecord(buf: Buffer, pos: number): ReadRecord {
  if (buf.length - pos < PREFIX_BYTES) return { ok: false, why: 'it ends inside the record prefix' };
  const prefix = buf.toString('latin1', pos, pos + PREFIX_BYTES);
  const m = /^([0-9a-f]{8}) ([0-9a-f]{8}) $/.exec(prefix);
  if (!m) return { ok: false, why: 'the record prefix is damaged' };
  const length = parseInt(m[1], 16);
  const end = pos + PREFIX_BYTES + length;
  if (end >= buf.length) return { ok: false, why: `it ends inside a record of ${length} bytes` };
  if (buf[end] !== NEWLINE) return { ok: false, why: 'the record does not end with a newline' };
  const payload = buf.subarray(pos + PREFIX_BYTES, end);
  if (crc32(payload) !== parseInt(m[2], 16)) return { ok: false, why: 'its checksum does not match' };
  return { ok: true, payload, next: end + 1 };
}

/** Whether a good record starts at any line after `pos` (then a bad record at `pos` is damage, not a torn tail). */
function goodRecordAfter(buf: Buffer, pos: number): boolean {
  for (let nl = buf.indexOf(NEWLINE, pos); nl >= 0 && nl + 1 < buf.length; nl = buf.indexOf(NEWLINE, nl + 1)) {
    if (readRecord(buf, nl + 1).ok) return true;
  }
  return false;
}

/** A journal read back: the state, and the torn last record to drop, if any. */
export interface DecodedJournal {
  state: ServeState;
  /** Bytes of good records from the start of the file (where appending resumes). */
  goodBytes: number;
  /** A last record cut short or failing its checksum: a write never acknowledged, to drop. */
  torn?: { offset: number; bytes: number; why: string };
}

/** Parses and checks a format-2 file; `where` names it in messages. Throws a StateFileError when it cannot be used. */
export function decodeJournal(buf: Buffer, where: string): DecodedJournal {
  const bad = refusal(where);
  if (!buf.subarray(0, JOURNAL_HEADER.length).equals(Buffer.from(JOURNAL_HEADER)))
    bad('damaged state file header (format 2 has no more on its first line)');
  let pos = JOURNAL_HEADER.length;
  let run: { mqsim_version: string; options: ServeStateOptions } | undefined;
  const writes: JournaledWrite[] = [];
  let virtualNow = -Infinity;
  let last = -Infinity;
  for (let n = 1; pos < buf.length; n++) {
    const r = readRecord(buf, pos);
    if (!r.ok) {
      if (goodRecordAfter(buf, pos))
        throw new StateFileError(
          `${where} is damaged: record ${n} (at byte ${pos}) is bad (${r.why}) and good records follow it, so it is not a write cut short by a crash; refusing to use or overwrite it — the file is left untouched`,
        );
      if (!run)
        bad(`it ends inside its first record (the run's options: ${r.why}), so it was never completely created; delete it to start afresh`);
      return { state: stateOf(run!, writes, virtualNow), goodBytes: pos, torn: { offset: pos, bytes: buf.length - pos, why: r.why } };
    }
    const record = parseRecord(r.payload, n, bad);
    if ('run' in record) {
      if (run || n !== 1) bad(`record ${n} names the run again (only the first record does)`);
      run = { mqsim_version: String(record.run.mqsim_version ?? '?'), options: checkOptions(record.run.options, bad) };
    } else if (!run) bad('its first record is not the run record');
    else if ('write' in record) {
      last = checkWrite(record.write, writes.length, last, bad).at;
      writes.push(record.write);
    } else virtualNow = Math.max(virtualNow, record.virtual_now);
    pos = r.next;
  }
  if (!run) bad('it ends after its header (no run record)');
  return { state: stateOf(run!, writes, virtualNow), goodBytes: pos };
}

function parseRecord(payload: Buffer, n: number, bad: (what: string) => never): JournalRecord {
  let data: unknown;
  try {
    data = JSON.parse(payload.toString('utf8'));
  } catch (e) {
    return bad(`record ${n} is not JSON (${(e as Error).message}) although its checksum matches`);
  }
  if (isRecord(data)) {
    if (isRecord(data.run)) return data as JournalRecord;
    if ('write' in data) return data as JournalRecord;
    if (typeof data.virtual_now === 'number' && Number.isFinite(data.virtual_now)) return data as JournalRecord;
  }
  return bad(`record ${n} is neither a run, a write nor a virtual time`);
}

function stateOf(run: { mqsim_version: string; options: ServeStateOptions }, writes: JournaledWrite[], virtualNow: number): ServeState {
  const reached = Math.max(virtualNow, writes.at(-1)?.at ?? -Infinity, run.options.epochMs);
  return { mqsimVersion: run.mqsim_version, options: run.options, virtualNow: reached, writes };
}
