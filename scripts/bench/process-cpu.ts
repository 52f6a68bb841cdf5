import { readFileSync } from 'node:fs';

/**
 * CPU time a process has used so far (user + system), in ms, read from /proc/<pid>/stat (Linux);
 * undefined where that cannot be read. On a virtual machine whose host takes cores away (steal
 * time), a server's CPU time per request is steadier than its requests per second: stolen time is
 * not charged to the process.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the name, in clock ticks.
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/** USER_HZ: 100 on Linux for every architecture Node runs on here (sysconf(_SC_CLK_TCK)). */
const CLOCK_TICKS_PER_SECOND = 100;
