import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';
import { LONG_RUNS, SLOW_TESTS } from './scripts/test-tiers.ts';

// `npm run test:fast`: the quick in-process tests, for the edit loop. The files left out (processes, real
// services, Chromium, Docker, and the long in-process runs) are listed in scripts/test-tiers.ts; `npm test` runs them all.
export default mergeConfig(base, defineConfig({ test: { exclude: [...SLOW_TESTS, ...LONG_RUNS, '**/node_modules/**'] } }));
