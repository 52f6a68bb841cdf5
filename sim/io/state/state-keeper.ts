import { existsSync, statSync } from 'node:fs';
import type { JournaledWrite, ServeStateOptions } from './state-file.ts';
import { encodeJournal, encodeRecord, type JournalRecord } from './state-journal-format.ts';
import { openJournalFile, replaceFileDurably, truncateDurably, type JournalFile, type OpenJournalFile } from './journal-file.ts';
import type { LoadedState } from './state-load.ts';

/**
 * Durable state of `mqsim serve --state FILE`: a write-ahead journal with group commit.
 *
 * Why a journal of writes and not a snapshot of the model: the model is a discrete-event simulation
 * whose future lives in its event queue as closures (timers of Raft nodes, fetchers, the demo
 * population, connectors), so its state cannot be written out and read back faithfully without
 * every part learning to serialise and rebuild itself. It is, however, deterministic: the same seed
 * and options give the same run, and the only inputs from outside are the requests that changed the
 * model. So the file holds the options, every model write with the virtual time it was handled at,
 * and the virtual time reached; a restart rebuilds the cluster from the seed and applies the writes
 * again at their times (state-replay.ts), checking each answers as it did. Costs, stated plainly:
 * the file grows with every write (nothing is compacted), and a restart re-simulates the whole
 * virtual history, so it takes longer the longer the run was.
 *
 * Durability: a write's record is put in an in-memory buffer at once, in the order the model took
 * the writes (so the file's order is the model's); its answer waits until the record is on disk
 * (`append` resolves then). One fsync runs at a time; records that arrive while it runs share the
 * next one (group commit), so many clients cost a few fsyncs, not one each. A failed write or fsync
 * cannot be retried safely (the kernel may have dropped the pages), so the keeper stops: waiting
 * answers fail and `onFatal` is told once (serve exits non-zero).
 */
export class StateKeeper {
  private pending: Buffer[] = [];
  private appended = 0;
  private durable = 0;
  /** Answers waiting for their record, in record order; `head` is the first still waiting. */
  private waiters: { seq: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  private head = 0;
  private file: JournalFile | undefined;
  private flushing = false;
  private failed: Error | undefined;
  private closed = false;
  private writes: number;
  private syncs = 0;
  private syncMs = 0;
  private appendedThisRun = 0;
  private lastTime: number;
  private ticker: NodeJS.Timeout | undefined;
  private bytesDurable = 0;

  constructor(private readonly args: StateKeeperArgs) {
    this.writes = args.loaded?.state.writes.length ?? 0;
    this.lastTime = args.loaded?.state.virtualNow ?? args.options.epochMs;
  }

  /** Writes journaled, those of the file when it was loaded included. */
  get writeCount(): number {
    return this.writes;
  }

  /**
   * Bytes of the file that are durable and whole records (a journal by themselves): where a
   * checkpoint may be taken. 0 until open.
   */
  get durableBytes(): number {
    return this.bytesDurable;
  }

  /** fsyncs done since open (group commit makes them fewer than the writes). */
  get fsyncCount(): number {
    return this.syncs;
  }

  /** How the journal did this run, for a line at shutdown: records, fsyncs, their mean time. */
  get summary(): string {
    const perSync = this.syncs > 0 ? this.appendedThisRun / this.syncs : 0;
    const mean = this.syncs > 0 ? this.syncMs / this.syncs : 0;
    return `${this.appendedThisRun} record(s) in ${this.syncs} fsync(s) this run (${perSync.toFixed(1)} per fsync; mean write + fsync ${mean.toFixed(2)} ms)`;
  }

  /**
   * Journals a model write: its record goes into the buffer now (so records keep the model's order);
   * the promise resolves once it is on disk, and rejects if it cannot be made durable.
   */
  append(write: JournaledWrite): Promise<void> {
    return this.whenDurable(this.record(write)) ?? Promise.resolve();
  }

  /** Journals a model write without waiting (see `mark`/`whenDurable`); returns its record's number. */
  record(write: JournaledWrite): number {
    this.writes++;
    this.lastTime = Math.max(this.lastTime, write.at);
    return this.push({ write });
  }

  /** Number of the last record journaled: everything answered after it must wait for it. */
  mark(): number {
    return this.appended;
  }

  /** Undefined when record `seq` is durable already; otherwise resolves when it is (rejects on failure). */
  whenDurable(seq: number): Promise<void> | undefined {
    if (this.failed) return Promise.reject(this.failed);
    if (seq <= this.durable) return undefined;
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  /**
   * Makes the file ready to append to, once the recorded run was replayed (so a file that does not
   * resume is never touched): creates a new one, cuts a torn last record off, or converts a format-1
   * file to a journal. `rewrite`: the recorded run must be written out anew (its options or write
   * bodies changed: an older file's secrets in clear sealed, a replaced admin password), through a
   * temporary file like a conversion. Then writes out what was journaled meanwhile and records
   * virtual time every `virtualTimeEveryMs`.
   */
  async open(how: { rewrite?: boolean } = {}): Promise<void> {
    const { path, loaded } = this.args;
    if (!loaded || loaded.format === 1 || how.rewrite) {
      const records: JournalRecord[] = loaded
        ? [...loaded.state.writes.map((write) => ({ write })), { virtual_now: loaded.state.virtualNow }]
        : [];
      replaceFileDurably(path, encodeJournal(this.args.mqsimVersion, this.args.options, records));
      if (loaded?.format === 1) this.args.onNotice?.(`converted ${path} from state format 1 to the journal (format 2)`);
      else if (loaded?.torn)
        this.args.onNotice?.(`${path}: dropped a torn last record (${loaded.torn.bytes} bytes), a write that was never acknowledged`);
    } else if (loaded.torn) {
      if (!existsSync(path)) throw new Error(`${path} disappeared while the run was replayed`);
      truncateDurably(path, loaded.goodBytes);
      this.args.onNotice?.(
        `${path}: dropped a torn last record (${loaded.torn.bytes} bytes at byte ${loaded.torn.offset}: ${loaded.torn.why}), a write that was never acknowledged`,
      );
    }
    this.file = await (this.args.openFile ?? openJournalFile)(path);
    // Everything in the file now was written and fsynced by the replaced/cut file or an earlier run.
    this.bytesDurable = existsSync(path) ? statSync(path).size : 0;
    this.startFlush();
    const every = this.args.virtualTimeEveryMs ?? 5_000;
    if (every > 0) {
      this.ticker = setInterval(() => this.recordVirtualTime(), every);
      this.ticker.unref();
    }
  }

  /** Records the virtual time reached (when it moved), so a resumed run continues from there. */
  recordVirtualTime(): void {
    if (this.closed || this.failed) return;
    const now = this.args.virtualNow();
    if (now <= this.lastTime) return;
    this.lastTime = now;
    this.push({ virtual_now: now });
  }

  /** Shutdown: records the virtual time reached, waits for every record to be durable, closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.ticker) clearInterval(this.ticker);
    if (!this.file && !this.failed) await this.open();
    this.recordVirtualTime();
    this.closed = true;
    await this.whenDurable(this.appended);
    await this.file?.close();
    this.file = undefined;
  }

  private push(record: JournalRecord): number {
    if (this.closed) throw new Error(`the state journal ${this.args.path} is closed`);
    this.pending.push(encodeRecord(record));
    this.appended++;
    this.startFlush();
    return this.appended;
  }

  private startFlush(): void {
    if (this.flushing || !this.file || this.failed || this.pending.length === 0) return;
    this.flushing = true;
    // Next turn of the event loop: the records of every request handled in this one share the fsync.
    setImmediate(() => void this.flushLoop());
  }

  /** One write + fsync at a time, each taking every record buffered when it starts. */
  private async flushLoop(): Promise<void> {
    try {
      while (this.pending.length > 0 && !this.failed) {
        const chunk = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
        this.pending = [];
        const upTo = this.appended;
        const started = performance.now();
        await this.file!.append(chunk);
        await this.file!.sync();
        this.syncMs += performance.now() - started;
        this.syncs++;
        this.appendedThisRun += upTo - this.durable;
        this.durable = upTo;
        this.bytesDurable += chunk.length;
        this.settle();
        // One turn of the event loop before the next batch: requests already read from their sockets
        // (and answers just released) get to journal their records and join it.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (e) {
      this.fail(e as Error);
    } finally {
      this.flushing = false;
    }
  }

  private settle(): void {
    const waiters = this.waiters;
    while (this.head < waiters.length && waiters[this.head].seq <= this.durable) waiters[this.head++].resolve();
    if (this.head > 1024 && this.head * 2 > waiters.length) {
      this.waiters = waiters.slice(this.head);
      this.head = 0;
    }
  }

  private fail(cause: Error): void {
    if (this.failed) return;
    this.failed = new JournalFailure(`could not make the state journal ${this.args.path} durable: ${cause.message}`, { cause });
    for (let i = this.head; i < this.waiters.length; i++) this.waiters[i].reject(this.failed);
    this.waiters = [];
    this.head = 0;
    this.args.onFatal(this.failed);
  }
}

/** The journal could not be written or fsynced: nothing waiting for it may be acknowledged. */
export class JournalFailure extends Error {}

export interface StateKeeperArgs {
  path: string;
  mqsimVersion: string;
  /** The run's options, written in a new file's run record (carried through unchanged). */
  options: ServeStateOptions;
  /** The file as loaded (loadState), when it existed. */
  loaded?: LoadedState;
  /** Virtual time now (live mode: brought up to wall time). */
  virtualNow: () => number;
  /** Called once when a write or fsync failed: the process cannot promise durability any more. */
  onFatal: (e: Error) => void;
  /** One-line notices (a torn record dropped, a format-1 file converted). */
  onNotice?: (line: string) => void;
  /** The file layer (default: the real file); tests put one in between. */
  openFile?: OpenJournalFile;
  /** Wall-clock period of virtual-time records, ms (default 5 000; 0: only on close). */
  virtualTimeEveryMs?: number;
}
