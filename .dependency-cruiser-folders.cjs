// Folder-level boundaries of sim/ and suites/, checked by `npm run deps` after .dependency-cruiser.cjs:
// no two folders import each other, directly or round a longer loop, in the code that ships (tests
// and the helpers only tests import are left out: a part's tests may drive it through the whole
// cluster or the in-process HTTP client). A folder is a part with one direction of dependency: the
// parts below it get what they need from above as narrow interfaces.
/** Tests and test-only helpers (the same set as TEST_CODE in .dependency-cruiser.cjs). */
const TEST_CODE = '\\.test\\.ts$|/testing/|test-support\\.ts$|-test-kit\\.ts$|-test-harness\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular-folders',
      comment: 'No two folders of sim/ or suites/ import each other (directly or round a loop), tests left out.',
      scope: 'folder',
      severity: 'error',
      from: { path: '^(sim|suites)/' },
      to: { circular: true },
    },
  ],
  options: {
    // as in .dependency-cruiser.cjs, with the test code left out
    doNotFollow: { path: 'node_modules' },
    exclude: { path: `^(node_modules|dist|reports|coverage)/|${TEST_CODE}` },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
