import { readFileSync } from 'node:fs';

/**
 * The process's soft limit on open files (`ulimit -n`), read from /proc on Linux; undefined where it
 * cannot be read. Every MQTT connection holds one descriptor, so the listener sizes its socket cap by it.
 */
export function openFileLimit(procLimits = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(procLimits, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === undefined) return undefined;
    if (soft === 'unlimited') return Number.MAX_SAFE_INTEGER;
    const n = Number(soft);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}
