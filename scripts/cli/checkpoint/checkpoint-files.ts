import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MQSIM_VERSION } from '../../../sim/version.ts';

/**
 * The files of a checkpoint of `mqsim serve --state FILE`, next to it: `FILE.checkpoint`, the V8
 * startup snapshot of the model at a journal record, and `FILE.checkpoint.json`, what it covers and
 * what it was made by. Only the newest is kept. A checkpoint is used only when every field matches
 * this start (and the file still begins with the bytes it covers); otherwise it is removed.
 */
export interface CheckpointMeta {
  /** Bytes of the journal the model holds (whole records from the start of the file). */
  journalBytes: number;
  /** sha256 of those bytes: the file must still begin with them. */
  journalSha256: string;
  /** Writes among them. */
  writes: number;
  /** Virtual time the model reached, Unix ms. */
  virtualNow: number;
  mqsimVersion: string;
  nodeVersion: string;
  /** sha256 of the sources bundled into the code the snapshot was built from (a changed source makes it stale). */
  codeSha256: string;
  /** Those sources, relative to the package root. */
  codeInputs: string[];
  /** sha256 of the model's options besides the journal (modelOptionsOf): another port, another model. */
  modelSha256: string;
  /**
   * A random id given to the build, which the model in the snapshot holds too: the two files are
   * renamed one after the other, so a blob and a description of two builds could meet after a crash;
   * the restored process checks the id before it does anything (else the whole journal is replayed).
   */
  buildId: string;
  /** sha256 and size of the snapshot file (the hash is checked while the restored process starts). */
  blobSha256: string;
  blobBytes: number;
}

export const blobPath = (state: string): string => `${state}.checkpoint`;
export const metaPath = (state: string): string => `${state}.checkpoint.json`;
/** A blob being built (renamed into place when whole); left over when serve was killed during a build. */
export const tmpBlobPath = (state: string, pid: number): string => `${state}.checkpoint.tmp-${pid}`;

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** sha256 of the first `bytes` bytes of `path` (all of it when undefined), read as a stream. */
export async function fileSha256(path: string, bytes?: number): Promise<string> {
  const hash = createHash('sha256');
  if (bytes === 0) return hash.digest('hex');
  for await (const chunk of createReadStream(path, bytes !== undefined ? { end: bytes - 1 } : {})) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function readMeta(state: string): CheckpointMeta | undefined {
  if (!existsSync(metaPath(state))) return undefined;
  try {
    return JSON.parse(readFileSync(metaPath(state), 'utf8')) as CheckpointMeta;
  } catch {
    return undefined;
  }
}

/** Why the checkpoint of `state` cannot be used for this start (undefined: it can). */
export async function checkpointProblem(
  state: string,
  meta: CheckpointMeta | undefined,
  want: { modelSha256: string; codeSha256: (inputs: readonly string[]) => Promise<string> },
): Promise<string | undefined> {
  if (!meta) return existsSync(metaPath(state)) ? 'its description is unreadable' : 'it has no description';
  if (meta.nodeVersion !== process.version) return `it was made by Node ${meta.nodeVersion}, this is ${process.version}`;
  if (meta.mqsimVersion !== MQSIM_VERSION) return `it was made by mqsim ${meta.mqsimVersion}, this is ${MQSIM_VERSION}`;
  if (!Array.isArray(meta.codeInputs) || meta.codeSha256 !== (await want.codeSha256(meta.codeInputs)))
    return "mqsim's code changed since it was made";
  if (meta.modelSha256 !== want.modelSha256) return 'it was made with other options (port, host, MQTT login, password)';
  if (!existsSync(blobPath(state))) return 'its snapshot file is missing';
  const size = statSync(state).size;
  if (size < meta.journalBytes) return `the state file is shorter (${size} bytes) than the ${meta.journalBytes} it covers`;
  if ((await fileSha256(state, meta.journalBytes)) !== meta.journalSha256)
    return 'the state file no longer begins with the records it covers';
  if (statSync(blobPath(state)).size !== meta.blobBytes) return 'its snapshot file does not match its description';
  return undefined;
}

/** Removes the checkpoint of `state` (unless `keepNewest`) and whatever a build left half-made. */
export function removeCheckpoint(state: string, how: { keepNewest?: boolean } = {}): void {
  const files = [metaPath(state), blobPath(state)];
  const prefix = `${basename(state)}.checkpoint.tmp-`;
  const dir = dirname(state);
  if (existsSync(dir)) for (const f of readdirSync(dir)) if (f.startsWith(prefix)) files.push(join(dir, f));
  for (const f of how.keepNewest ? files.slice(2) : files) {
    try {
      unlinkSync(f);
    } catch {
      // gone already
    }
  }
}
