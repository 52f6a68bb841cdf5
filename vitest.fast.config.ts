import { defineConfig } from 'vitest/config';
import base, { TEST_FILES } from './vitest.config.ts';
import { LONG_RUNS, SLOW_TESTS } from './scripts/test-tiers.ts';

// `npm run test:fast`: the quick in-process tests, for the edit loop. The files left out (processes, real
// services, Chromium, Docker, and the long in-process runs) are listed in scripts/test-tiers.ts; `npm test`
// runs them all. Like the whole run's in-process project, the files share one module graph per worker.
export default defineConfig({
  resolve: base.resolve,
  test: {
    ...base.test,
    projects: undefined,
    include: TEST_FILES,
    exclude: [...SLOW_TESTS, ...LONG_RUNS, '**/node_modules/**'],
    isolate: false,
  },
});
