import { describe, expect, it } from 'vitest';
import { warmUpReporter } from './serve-warm-up.ts';

describe('serve warm-up progress lines', () => {
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
});
