/**
 * The two test tiers. `npm test` runs every test file; `npm run test:fast` (vitest.fast.config.ts) leaves
 * out the files below: SLOW_TESTS start processes (the CLI, a server, curl, prism, mosquitto clients) or
 * talk to real services (PostgreSQL, MariaDB, Redis, RabbitMQ, Mosquitto, NATS), Chromium or Docker;
 * LONG_RUNS run in-process but take 10 s or more of a busy two-core machine each.
 * scripts/test-tiers.test.ts reads every test file and fails when one that spawns or needs a service is
 * missing from SLOW_TESTS, so the fast tier stays in-process.
 */
export const SLOW_TESTS: readonly string[] = [
  // Spawn the CLI (bin/mqsim.js) or a server process.
  'scripts/chaos/target-chaos.test.ts',
  'scripts/cli/chaos-command.test.ts',
  'scripts/cli/chaos-sweep.test.ts',
  'scripts/cli/cli.test.ts',
  'scripts/cli/conform-command.test.ts',
  'scripts/cli/conform-mqtt-listener.test.ts',
  'scripts/cli/conform-target-stops.test.ts',
  'scripts/cli/job-shards.test.ts',
  'scripts/cli/many-connections.test.ts',
  'scripts/cli/report-command.test.ts',
  'scripts/cli/scenario-command.test.ts',
  'scripts/cli/serve-mqtt-state.test.ts',
  'scripts/cli/serve-safe-defaults.test.ts',
  'scripts/cli/serve-checkpoint.test.ts',
  'scripts/cli/checkpoint/checkpoint.test.ts',
  'scripts/cli/serve-state-crash.test.ts',
  'scripts/cli/serve-state-torn.test.ts',
  'scripts/cli/serve-state.test.ts',
  'scripts/bench/list-bench.test.ts',
  'scripts/package/packed-install.test.ts',
  'scripts/soak/soak-run.test.ts',
  'sim/model/auth/security.test.ts',
  'sim/switches/serve-flag.test.ts',
  'sim/dialects/serve-dialect-flag.test.ts',
  // Spawn other tools: spectral, prism, curl through bash.
  'contract/to-openapi.spectral.test.ts',
  'suites/conform/calibration/prism-mock.test.ts',
  'suites/conform/exchange.test.ts',
  'suites/openapi-proxy/openapi-proxy.test.ts',
  // Real services.
  'sim/io/live-connectors/servers-live.test.ts',
  'sim/io/nats/nats-bridge.test.ts',
  'sim/io/mqtt-wire/mosquitto-clients.test.ts',
  // Chromium.
  'sim/io/http/cors-browser.test.ts',
  'suites/report/writers/html-browser.test.ts',
  // Docker.
  'scripts/docker/docker-image.test.ts',
  'scripts/docker/scratch-image.test.ts',
  'suites/targets/docker-target.test.ts',
];

/**
 * In-process, but whole conformance runs (every check of the contract against the simulator or its
 * deviations), property searches and slow hashing: 10 s to 150 s each with other work on the machine
 * (vitest's per-file durations, 27 Nov 2026), three quarters of the in-process time. Keep a file here
 * only while it is that slow.
 */
export const LONG_RUNS: readonly string[] = [
  'lib/conform.test.ts',
  'scripts/deviations/deviations-caught.test.ts',
  'scripts/deviations/real-server-allowed.test.ts',
  'scripts/deviations/real-server-findings.test.ts',
  'scripts/deviations/robustmq-conform.test.ts',
  'scripts/serializers/writers-verified.test.ts',
  'sim/model/auth/admin-password.test.ts',
  'sim/runs/chaos/chaos.test.ts',
  'sim/admin-api/list-differential/list-history.test.ts',
  'sim/model/mqtt/monitor-reference.test.ts',
  'suites/conform/conform-sim.e2e.test.ts',
  'suites/conform/hostile-targets.test.ts',
  'suites/conform/peer-address-run.test.ts',
  'suites/run/runner.test.ts',
  'suites/conform/testing/plain-list-server.test.ts',
  'suites/properties/broken-server.test.ts',
  'suites/properties/list-histories/list-histories.test.ts',
  'suites/report/merge.test.ts',
  'suites/scenarios/deviation.e2e.test.ts',
];

/**
 * The longest test files, longest first: `npm test` starts them before all others
 * (scripts/test-sequencer.ts), so two workers are not left with one long file running alone at the
 * end. Vitest orders by the durations of its last run when it has them; a fresh clone (CI) has none,
 * and without this list runs the files in the order it finds them. Seconds of one file on the two-core
 * machine with the other worker busy (vitest's JSON report, 28 Nov 2026; the Docker and
 * packed-install figures include their set-up, the one `npm pack` of the run: the Docker test comes
 * first so it packs, and the packed-install test starts once the tarball is there).
 */
export const LONGEST_FIRST: readonly string[] = [
  'scripts/docker/docker-image.test.ts', // 140–160
  'scripts/deviations/deviations-caught.test.ts', // 90
  'suites/openapi-proxy/openapi-proxy.test.ts', // 88
  'scripts/deviations/real-server-findings.test.ts', // 83
  'scripts/package/packed-install.test.ts', // 87 + the install
  'scripts/cli/job-shards.test.ts', // 77
  'scripts/soak/soak-run.test.ts', // 74
  'scripts/cli/serve-state.test.ts', // 66
  'sim/admin-api/list-differential/list-history.test.ts', // 56
  'suites/run/runner.test.ts', // 54
  'scripts/deviations/real-server-allowed.test.ts', // 43
  'scripts/cli/serve-safe-defaults.test.ts', // 42
  'suites/report/merge.test.ts', // 34
  'scripts/cli/serve-state-crash.test.ts', // 33
  'scripts/cli/serve-mqtt-state.test.ts', // 31
  'scripts/cli/conform-command.test.ts', // 31
  'scripts/cli/serve-checkpoint.test.ts', // 27
];
