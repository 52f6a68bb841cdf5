import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './scripts/test-sequencer.ts';
import { SLOW_TESTS } from './scripts/test-tiers.ts';

export const TEST_FILES = [
  'lib/**/*.test.ts',
  'sim/**/*.test.ts',
  'suites/**/*.test.ts',
  'contract/**/*.test.ts',
  'fixtures/**/*.test.ts',
  'scripts/**/*.test.ts',
  'examples/**/*.test.ts',
];

export default defineConfig({
  // The examples import the package by name, as its users do; in this repository that is the sources
  // (never a dist/ left by an earlier build).
  resolve: { alias: [{ find: /^mqsim$/, replacement: fileURLToPath(new URL('./lib/index.ts', import.meta.url)) }] },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // One `npm pack` per run, shared by the tests that install the package (scripts/package/run-pack.ts).
    globalSetup: ['./scripts/package/run-pack.ts'],
    pool: 'forks',
    // Vitest's default (cores - 1) runs the files one at a time on a two-core machine; the long
    // proofs (deviation runs, soak, OpenAPI proxy) wait mostly on I/O and the event loop, so two
    // files at once take the suite from ≈12.5 to ≈7.5 min there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The longest files first (scripts/test-tiers.ts), also in a fresh clone, which has no durations.
    sequence: { sequencer: LongestFirstSequencer },
    reporters: ['default', './scripts/test-summary-reporter.ts'],
    projects: [
      {
        // The in-process tests share one module graph per worker (isolate: false): most of their time
        // was importing the same contract and model again for every file (≈200 of ≈290 s in sim/model).
        // So no environment variable or global a test stubs outlives it, those are restored after each
        // test; a spy is the test's own to restore (some watch a prototype across a describe's tests).
        extends: true,
        test: {
          name: 'in-process',
          include: TEST_FILES,
          exclude: [...SLOW_TESTS, '**/node_modules/**'],
          isolate: false,
          unstubEnvs: true,
          unstubGlobals: true,
        },
      },
      {
        // Tests that start processes or talk to real services, Chromium or Docker keep a fresh worker each.
        extends: true,
        test: { name: 'processes', include: [...SLOW_TESTS] },
      },
    ],
  },
});
