import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { decodeState, encodeState, StateFileError, type JournaledWrite, type ServeState, type ServeStateOptions } from './state-file.ts';

/**
 * Durable state of `mqsim serve --state FILE`.
 *
 * Why a journal of writes and not a snapshot of the model: the model is a discrete-event simulation
 * whose future lives in its event queue as closures (timers of Raft nodes, fetchers, the demo
 * population, connectors), so its state cannot be written out and read back faithfully without
 * every part learning to serialise and rebuild itself. It is, however, deterministic: the same seed
 * and options give the same run, and the only inputs from outside are the requests that changed the
 * model. So the file holds the options, every model write with the virtual time it was handled at,
 * and the virtual time reached; a restart rebuilds the cluster from the seed and applies the writes
 * again at their times (state-replay.ts), checking each answers as it did. Everything a write
 * acknowledged (tenants, users, ACL, blacklist, schemas and bindings, rules, connectors, configs,
 * topics and their records and offsets, mailboxes...) and everything the simulation did around it
 * comes back. Costs, stated plainly: the file grows with every write (nothing is compacted), and a
 * restart re-simulates the whole virtual history, so it takes longer the longer the run was.
 *
 * Saving: after a write, debounced (`debounceMs`), and on shutdown; each save writes a temporary file
 * next to the target, fsyncs it and renames it over the target, so a crash leaves the old or the new
 * file, never half of one. A write is acknowledged to its client before the debounced save, so a
 * kill -9 (not SIGTERM or SIGINT) can lose the writes of the last `debounceMs`.
 */
export class StateKeeper {
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly mqsimVersion: string,
    private readonly options: ServeStateOptions,
    private readonly writes: JournaledWrite[],
    private readonly virtualNow: () => number,
    private readonly debounceMs: number,
    private readonly onError: (e: Error) => void,
  ) {}

  /**
   * Reads `path`: undefined when it does not exist (a new run will create it), the recorded state
   * otherwise. Anything else (a directory, unreadable, foreign, corrupt, truncated, newer) throws a
   * StateFileError and the file is not touched.
   */
  static load(path: string): ServeState | undefined {
    if (!existsSync(path)) {
      if (!existsSync(dirname(path))) throw new StateFileError(`--state ${path}: the directory ${dirname(path)} does not exist`);
      return undefined;
    }
    if (!statSync(path).isFile()) throw new StateFileError(`--state ${path} is not a regular file`);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new StateFileError(`--state ${path} cannot be read: ${(e as Error).message}`);
    }
    return decodeState(text, path);
  }

  static open(args: {
    path: string;
    mqsimVersion: string;
    options: ServeStateOptions;
    writes: JournaledWrite[];
    virtualNow: () => number;
    debounceMs?: number;
    onError: (e: Error) => void;
  }): StateKeeper {
    return new StateKeeper(
      args.path,
      args.mqsimVersion,
      args.options,
      [...args.writes],
      args.virtualNow,
      args.debounceMs ?? 200,
      args.onError,
    );
  }

  get writeCount(): number {
    return this.writes.length;
  }

  /** Journals a model write and schedules a save. */
  record(write: JournaledWrite): void {
    if (this.closed) return;
    this.writes.push(write);
    this.dirty = true;
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        try {
          this.saveNow();
        } catch (e) {
          this.onError(e as Error);
        }
      }, this.debounceMs);
    }
  }

  /** Writes the file now (atomically); throws on an I/O error. */
  saveNow(): void {
    const text = encodeState({
      mqsimVersion: this.mqsimVersion,
      options: this.options,
      virtualNow: this.virtualNow(),
      writes: this.writes,
    });
    const tmp = `${this.path}.tmp-${process.pid}`;
    try {
      const fd = openSync(tmp, 'w', 0o600);
      try {
        writeSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.path);
    } catch (e) {
      try {
        unlinkSync(tmp);
      } catch {
        // nothing to clean up
      }
      throw new Error(`could not save the state to ${this.path}: ${(e as Error).message}`, { cause: e });
    }
    this.dirty = false;
  }

  /** Stops the debounce timer and saves a last time (shutdown). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.closed) this.saveNow();
    this.closed = true;
  }

  get unsaved(): boolean {
    return this.dirty;
  }
}
