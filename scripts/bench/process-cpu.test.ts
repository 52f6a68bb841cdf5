import { describe, expect, it } from 'vitest';
import { processCpuMs } from './process-cpu.ts';

describe('processCpuMs', () => {
  it('reads a process CPU time that grows as it works, and agrees with its own account', () => {
    const before = processCpuMs(process.pid);
    if (before === undefined) return; // not Linux: nothing to read
    const own = process.cpuUsage();
    const used = (): number => {
      const u = process.cpuUsage(own);
      return (u.user + u.system) / 1000;
    };
    // Work until the process has used 200 ms of CPU by its own account (CPU time, not wall time).
    let x = 0;
    while (used() < 200) for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + i);
    const spent = used();
    const after = processCpuMs(process.pid)!;
    expect(x).toBeGreaterThan(0);
    // Clock ticks are 10 ms: the two accounts agree within a few ticks.
    expect(Math.abs(after - before - spent)).toBeLessThan(50);
  });

  it('gives undefined for no process', () => {
    expect(processCpuMs(undefined)).toBeUndefined();
    expect(processCpuMs(2 ** 30)).toBeUndefined();
  });
});
