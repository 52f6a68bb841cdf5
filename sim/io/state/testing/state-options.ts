import type { ServeStateOptions } from '../state-file.ts';

/**
 * The options of a recorded run, as the state tests write them: `--workload none`, envelope A, no
 * deviations, and the admin in the older form (password in clear), which the reader still accepts.
 */
export function testStateOptions(overrides: Partial<ServeStateOptions> = {}): ServeStateOptions {
  return {
    seed: '1',
    nodes: 1,
    workload: 'none',
    epochMs: Date.UTC(2026, 0, 1),
    envelope: 'A',
    deviations: [],
    admin: { username: 'admin', password: 'admin', tokenTtlHours: 8 },
    ...overrides,
  };
}
