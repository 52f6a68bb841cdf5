import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['sim/**/*.test.ts', 'suites/**/*.test.ts', 'fixtures/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default', './scripts/test-summary-reporter.ts'],
  },
});
