import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from './usage-error.ts';

/**
 * `FILE.lock` next to a state file: the ids of the processes serving it (the `mqsim serve` the user
 * started, and the process restored from a checkpoint that it runs). Two serves appending to one
 * journal would corrupt it, so a second start waits a little for the first to go (a serve just
 * killed may leave a restored process for a moment, until it sees its parent gone), then refuses.
 * A lock whose processes are all gone is stale (a kill -9) and taken over.
 */
export class StateLock {
  private pids: number[] = [process.pid];
  private released = false;

  private constructor(readonly path: string) {
    process.once('exit', () => this.release());
  }

  /** Takes the lock of `state`, waiting up to `waitMs` for a live holder to go. */
  static async take(state: string, waitMs = 10_000): Promise<StateLock> {
    const path = `${state}.lock`;
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        writeFileSync(path, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
        return new StateLock(path);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // No directory: loadState says so in its own words; nothing to lock.
        if (code === 'ENOENT') return new StateLock(path).disown();
        if (code !== 'EEXIST') throw new UsageError(`--state ${state}: cannot make its lock file ${path}: ${(e as Error).message}`);
      }
      const holders = readPids(path);
      if (holders.every((pid) => !alive(pid))) {
        removeQuietly(path);
        continue;
      }
      if (Date.now() > deadline)
        throw new UsageError(
          `--state ${state} is in use by mqsim serve (process ${holders.join(', ')}, see ${path}); stop it first, or use another --state file`,
        );
      await sleep(100);
    }
  }

  /** Adds a process that serves the file for this one (the restored process), atomically. */
  add(pid: number): void {
    if (this.released) return;
    this.pids.push(pid);
    const tmp = `${this.path}.tmp-${process.pid}`;
    writeFileSync(tmp, `${this.pids.join('\n')}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    removeQuietly(this.path);
  }

  private disown(): StateLock {
    this.released = true;
    return this;
  }
}

function readPids(path: string): number[] {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}
