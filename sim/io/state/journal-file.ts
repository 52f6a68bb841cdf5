import { closeSync, fsyncSync, ftruncateSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * The file operations of the state journal, apart from the journal's logic so that a test can put a
 * layer in between (count fsyncs, see when each completes, make one fail).
 */
export interface JournalFile {
  /** Appends all of `bytes` at the end of the file. */
  append(bytes: Buffer): Promise<void>;
  /** Makes everything appended so far durable (fdatasync: the data and the size needed to read it). */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export type OpenJournalFile = (path: string) => Promise<JournalFile>;

/** The real file, opened for appending. */
export const openJournalFile: OpenJournalFile = async (path) => {
  const handle = await open(path, 'a', 0o600);
  return {
    async append(bytes) {
      // A write may be partial (a signal, a full disk on the way): go on until every byte is written or it throws.
      for (let done = 0; done < bytes.length;) {
        const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, null);
        done += bytesWritten;
      }
    },
    sync: () => handle.datasync(),
    close: () => handle.close(),
  };
};

/**
 * Writes `bytes` as the whole of `path`, atomically and durably: a temporary file next to it (mode
 * 0600), fsynced, renamed over `path`, then the directory fsynced so the rename itself survives a
 * power loss. A crash leaves the old file or the new one, never half of one.
 */
export function replaceFileDurably(path: string, bytes: Buffer): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    const fd = openSync(tmp, 'w', 0o600);
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    fsyncDirectory(dirname(path));
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing to clean up
    }
    throw e;
  }
}

/** Cuts `path` to its first `length` bytes, durably. */
export function truncateDurably(path: string, length: number): void {
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, length);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** fsync of a directory: makes a file created or renamed in it survive a power loss. */
export function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
