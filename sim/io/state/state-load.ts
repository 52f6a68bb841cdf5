import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { decodeState, STATE_FORMAT_1, stateFormatOf, StateFileError, type ServeState } from './state-file.ts';
import { decodeJournal } from './state-journal-format.ts';

/** A state file read back, with what must happen to it before the run appends to it again. */
export interface LoadedState {
  state: ServeState;
  /** 1: the whole-file format of older mqsim versions, converted to a journal before appending; 2: the journal. */
  format: 1 | 2;
  /** Format 2: bytes of good records, where appending resumes. */
  goodBytes: number;
  /** Format 2: a last record cut short or failing its checksum (a write never acknowledged), to cut off. */
  torn?: { offset: number; bytes: number; why: string };
}

/**
 * Reads `path`: undefined when it does not exist (a new run will create it), the recorded state
 * otherwise. Anything else (a directory, unreadable, foreign, corrupt, damaged before its last
 * record, newer) throws a StateFileError. Nothing is written here: the file stays as it is until
 * the replay proved it resumes (StateKeeper.open).
 */
export function loadState(path: string): LoadedState | undefined {
  if (!existsSync(path)) {
    if (!existsSync(dirname(path))) throw new StateFileError(`--state ${path}: the directory ${dirname(path)} does not exist`);
    return undefined;
  }
  if (!statSync(path).isFile()) throw new StateFileError(`--state ${path} is not a regular file`);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new StateFileError(`--state ${path} cannot be read: ${(e as Error).message}`);
  }
  return decodeStateFile(bytes, path);
}

/** A state file's bytes in either format; `where` names it in messages. */
export function decodeStateFile(bytes: Buffer, where: string): LoadedState {
  const newline = bytes.indexOf(0x0a);
  const head = bytes.toString('latin1', 0, newline < 0 ? Math.min(bytes.length, 200) : Math.min(newline, 200));
  if (stateFormatOf(head, where) === STATE_FORMAT_1) {
    return { state: decodeState(bytes.toString('utf8'), where), format: 1, goodBytes: bytes.length };
  }
  const journal = decodeJournal(bytes, where);
  return { state: journal.state, format: 2, goodBytes: journal.goodBytes, ...(journal.torn ? { torn: journal.torn } : {}) };
}
