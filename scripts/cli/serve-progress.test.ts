import { describe, expect, it } from 'vitest';
import { replayReporter, warmUpReporter } from './serve-progress.ts';

describe('serve progress lines', () => {
  it('writes one line once 2 s of wall time have passed since the start or the last line', () => {
    let wall = 1_000;
    const lines: string[] = [];
    const report = warmUpReporter(
      1_000,
      (l) => lines.push(l),
      () => wall,
    );
    const progress = (minute: number) => ({ doneMs: minute * 60_000, totalMs: 3_600_000, clients: 100_000, connections: 70_000 });
    for (const [at, minute] of [
      [1_500, 1],
      [2_900, 2],
      [3_100, 3],
      [4_000, 4],
      [5_200, 5],
    ] as const) {
      wall = at;
      report(progress(minute));
    }
    expect(lines).toEqual([
      'mqsim serve: warm-up 3 of 60 virtual minutes, 100,000 clients (70,000 connected), 2.1 s\n',
      'mqsim serve: warm-up 5 of 60 virtual minutes, 100,000 clients (70,000 connected), 4.2 s\n',
    ]);
  });

  it('says how far a state-file replay is, on the same rhythm', () => {
    let wall = 0;
    const lines: string[] = [];
    const report = replayReporter(
      0,
      (l) => lines.push(l),
      () => wall,
    );
    const epoch = Date.UTC(2026, 10, 28, 12, 0, 0);
    for (const [at, applied] of [
      [1_000, 10_000],
      [2_000, 20_000],
      [3_500, 35_000],
      [4_100, 41_000],
    ] as const) {
      wall = at;
      report({ applied, total: 100_000, virtualMs: epoch + applied * 36 });
    }
    expect(lines).toEqual([
      'mqsim serve: replaying the state file: 20,000 of 100,000 writes, virtual 2026-11-28T12:12:00.000Z, 2.0 s\n',
      'mqsim serve: replaying the state file: 41,000 of 100,000 writes, virtual 2026-11-28T12:24:36.000Z, 4.1 s\n',
    ]);
  });
});
