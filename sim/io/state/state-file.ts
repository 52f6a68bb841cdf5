import { createHash } from 'node:crypto';
import type { ModelWrite } from '../../admin-api/admin-app.ts';
import type { EnvelopeForm } from '../../admin-api/envelope.ts';
import type { WorkloadName } from '../../model/nodes/cluster-options.ts';
import { DIALECT_NAMES, type DialectName } from '../../switches/dialects.ts';
import { isOneOf, isRecord } from '../../model/api/json-guards.ts';
import { isAdminPasswordHash, type AdminPasswordHash } from '../../model/auth/admin-password.ts';

/**
 * What a state file of `mqsim serve --state FILE` holds (the run's options and its journaled writes),
 * and format 1, the whole-file form written before the journal (format 2, state-journal-format.ts)
 * and still read so such a run resumes:
 *
 *   MQSIM-SERVE-STATE 1 sha256=<hex of the body bytes> bytes=<body length>\n
 *   {"mqsim_version":…, "options":{…}, "virtual_now":…, "writes":[…]}
 *
 * The magic names the kind of file, so another program's file (or any other JSON) is refused rather
 * than overwritten; the version lets a newer format be refused with a clear message; the length and
 * checksum catch truncation and corruption. What the body holds, and why a journal rather than a
 * snapshot, is explained in state-keeper.ts.
 */
export const STATE_MAGIC = 'MQSIM-SERVE-STATE';
/** The format this mqsim writes (the journal); it reads this one and format 1. */
export const STATE_FORMAT_VERSION = 2;
/** The whole-file format of older mqsim versions. */
export const STATE_FORMAT_1 = 1;

/** The options a run was started with: everything, besides the writes, that decides its model. */
export interface ServeStateOptions {
  seed: string;
  nodes: number;
  workload: WorkloadName;
  epochMs: number;
  envelope: EnvelopeForm;
  /** `--dialect`, when not `spec` (absent in files written before dialects). */
  dialect?: DialectName;
  /** `--clients`, when given. */
  clients?: number;
  deviations: string[];
  admin: RecordedAdmin;
}

/**
 * The administrator as recorded: the password as a salted hash, and no token signing secret (each
 * start is given it again: scripts/cli/serve-secrets.ts). Files of older versions hold `password`
 * in clear and maybe `jwtSecret`; they are still read, and saved without them.
 */
export interface RecordedAdmin {
  username: string;
  passwordHash?: AdminPasswordHash;
  /** Older files only. */
  password?: string;
  /** Older files only. */
  jwtSecret?: string;
  tokenTtlHours: number;
}

export interface ServeState {
  /** mqsim version that wrote the file (informational: a replay is checked answer by answer). */
  mqsimVersion: string;
  options: ServeStateOptions;
  /** Virtual time the run had reached when saved, Unix ms. */
  virtualNow: number;
  /** Every request that changed the model, in the order handled. */
  writes: JournaledWrite[];
}

/** A model write as stored: the request, when, and a digest of what it answered. */
export interface JournaledWrite {
  /**
   * `api`: the admin HTTP API; `control`: the simulator control interface (/_sim/); `mqtt`: an
   * operation of a connection to the MQTT listener (method `MQTT`, url the op's name, body the op).
   */
  source: 'api' | 'control' | 'mqtt';
  at: number;
  node: number;
  method: string;
  url: string;
  body?: string;
  status: number;
  /** First 16 hex digits of the sha256 of the answer's body. */
  answer: string;
}

/** A state file that cannot be used: the message says which file and why; the file is left as it is. */
export class StateFileError extends Error {}

export const answerDigest = (body: string): string => createHash('sha256').update(body).digest('hex').slice(0, 16);

export function journaled(source: JournaledWrite['source'], w: ModelWrite): JournaledWrite {
  return {
    source,
    at: w.at,
    node: w.nodeId,
    method: w.method,
    url: w.url,
    ...(w.body !== undefined ? { body: w.body } : {}),
    status: w.status,
    answer: answerDigest(w.answer),
  };
}

/** An MQTT listener operation as a journaled write (see sim/model/cluster-ops/wire-ops.ts). */
export function journaledMqtt(at: number, nodeId: number, opName: string, body: string, answer: string): JournaledWrite {
  return { source: 'mqtt', at, node: nodeId, method: 'MQTT', url: opName, body, status: 200, answer: answerDigest(answer) };
}

/** A state in format 1 (older mqsim versions; tests make such files to check they still resume). */
export function encodeState(state: ServeState): string {
  const body = JSON.stringify({
    mqsim_version: state.mqsimVersion,
    options: state.options,
    virtual_now: state.virtualNow,
    writes: state.writes,
  });
  const bytes = Buffer.byteLength(body);
  const sha = createHash('sha256').update(body).digest('hex');
  return `${STATE_MAGIC} ${STATE_FORMAT_1} sha256=${sha} bytes=${bytes}\n${body}`;
}

const HEADER = /^MQSIM-SERVE-STATE (\d+) sha256=([0-9a-f]{64}) bytes=(\d+)$/;

/**
 * Refuses a file that is no state file (with a hint when it is some other JSON), and one of a newer or
 * unknown format; returns the format version of its first line otherwise.
 */
export function stateFormatOf(head: string, where: string): number {
  if (!head.startsWith(`${STATE_MAGIC} `)) {
    const looksJson = /^\s*[[{]/.test(head);
    throw new StateFileError(
      `${where} is not an mqsim serve state file (it does not start with "${STATE_MAGIC}"${looksJson ? '; it is some other JSON document' : ''}); refusing to use or overwrite it — pass another path to --state`,
    );
  }
  const m = /^MQSIM-SERVE-STATE (\d+)(?: |$)/.exec(head);
  if (!m)
    throw new StateFileError(`${where}: damaged state file header ${JSON.stringify(head.slice(0, 120))}; refusing to use or overwrite it`);
  const version = Number(m[1]);
  if (version > STATE_FORMAT_VERSION) {
    throw new StateFileError(
      `${where} was written by a newer mqsim (state format ${version}; this mqsim reads format ${STATE_FORMAT_VERSION}); upgrade mqsim to resume it — the file is left untouched`,
    );
  }
  if (version < 1) throw new StateFileError(`${where}: unknown state format ${version}; refusing to use or overwrite it`);
  return version;
}

/** Parses and checks the text of a format-1 state file; `where` names the file in messages. */
export function decodeState(text: string, where: string): ServeState {
  const newline = text.indexOf('\n');
  const head = newline < 0 ? text : text.slice(0, newline);
  if (stateFormatOf(head, where) !== STATE_FORMAT_1) throw new StateFileError(`${where} is not in state format 1`);
  const m = HEADER.exec(head);
  if (!m)
    throw new StateFileError(`${where}: damaged state file header ${JSON.stringify(head.slice(0, 120))}; refusing to use or overwrite it`);
  if (newline < 0) throw new StateFileError(`${where} is truncated: it ends after its header; refusing to use or overwrite it`);
  const body = text.slice(newline + 1);
  const bytes = Buffer.byteLength(body);
  if (bytes !== Number(m[3]))
    throw new StateFileError(
      `${where} is truncated or damaged: its body has ${bytes} bytes, the header says ${m[3]}; refusing to use or overwrite it`,
    );
  const sha = createHash('sha256').update(body).digest('hex');
  if (sha !== m[2])
    throw new StateFileError(
      `${where} is corrupt: the sha256 of its body is ${sha.slice(0, 16)}…, the header says ${m[2].slice(0, 16)}…; refusing to use or overwrite it`,
    );
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch (e) {
    throw new StateFileError(`${where}: the body is not JSON (${(e as Error).message}) although its checksum matches; refusing to use it`, {
      cause: e,
    });
  }
  return checkShape(data, where);
}

function checkShape(data: unknown, where: string): ServeState {
  const bad = refusal(where);
  if (!isRecord(data)) return bad('the body is not an object');
  const options = checkOptions(data.options, bad);
  if (typeof data.virtual_now !== 'number' || !Number.isFinite(data.virtual_now)) return bad('virtual_now is missing');
  if (!Array.isArray(data.writes)) return bad('writes is not a list');
  let last = -Infinity;
  data.writes.forEach((w: unknown, i: number) => {
    last = checkWrite(w, i, last, bad).at;
  });
  return {
    mqsimVersion: String(data.mqsim_version ?? '?'),
    options,
    virtualNow: data.virtual_now,
    writes: data.writes as JournaledWrite[],
  };
}

/** Throws a StateFileError naming `where` and what is wrong with it. */
export const refusal =
  (where: string) =>
  (what: string): never => {
    throw new StateFileError(`${where}: ${what}; refusing to use or overwrite it`);
  };

/** The recorded options, checked field by field (the object itself is carried through unchanged). */
export function checkOptions(o: unknown, bad: (what: string) => never): ServeStateOptions {
  if (
    !isRecord(o) ||
    typeof o.seed !== 'string' ||
    !Number.isInteger(o.nodes) ||
    (o.workload !== 'demo' && o.workload !== 'none') ||
    !Number.isFinite(o.epochMs)
  )
    return bad('options {seed, nodes, workload, epochMs} are missing or wrong');
  if (o.envelope !== 'A' && o.envelope !== 'B') bad('options.envelope must be A or B');
  if (o.dialect !== undefined && !isOneOf(DIALECT_NAMES, o.dialect))
    bad(`options.dialect ${JSON.stringify(o.dialect)} is not one of ${DIALECT_NAMES.join(', ')}`);
  if (!Array.isArray(o.deviations) || !isRecord(o.admin) || typeof o.admin.username !== 'string')
    bad('options.deviations or options.admin are missing');
  const admin = o.admin as Record<string, unknown>;
  if (admin.passwordHash !== undefined ? !isAdminPasswordHash(admin.passwordHash) : typeof admin.password !== 'string')
    bad('options.admin.passwordHash is missing or malformed');
  // Checked field by field above.
  return o as Partial<ServeStateOptions> as ServeStateOptions;
}

/** Write number `i` (from 0), checked; `last` is the virtual time of the write before it. */
export function checkWrite(w: unknown, i: number, last: number, bad: (what: string) => never): JournaledWrite {
  if (
    !isRecord(w) ||
    (w.source !== 'api' && w.source !== 'control' && w.source !== 'mqtt') ||
    typeof w.at !== 'number' ||
    !Number.isFinite(w.at) ||
    !Number.isInteger(w.node) ||
    typeof w.method !== 'string' ||
    typeof w.url !== 'string' ||
    !Number.isInteger(w.status) ||
    typeof w.answer !== 'string'
  )
    return bad(`write ${i + 1} is malformed`);
  if (w.at < last) bad(`write ${i + 1} goes back in virtual time`);
  return w as Partial<JournaledWrite> as JournaledWrite;
}
