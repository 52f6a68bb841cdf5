/**
 * The two test tiers. `npm test` runs every test file; `npm run test:fast` (vitest.fast.config.ts) leaves
 * out the files below, which start processes (the CLI, a server, curl, prism, mosquitto clients) or talk
 * to real services (PostgreSQL, MariaDB, Redis, RabbitMQ, Mosquitto, NATS), Chromium or Docker.
 * scripts/test-tiers.test.ts reads every test file and fails when one that does so is missing here, so
 * the fast tier stays in-process.
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
  'scripts/cli/serve-state-crash.test.ts',
  'scripts/cli/serve-state-torn.test.ts',
  'scripts/cli/serve-state.test.ts',
  'scripts/bench/list-bench.test.ts',
  'scripts/package/packed-install.test.ts',
  'scripts/soak/soak-run.test.ts',
  'sim/auth/security.test.ts',
  'sim/http/deviations/serve-flag.test.ts',
  'sim/http/dialects/serve-dialect-flag.test.ts',
  // Spawn other tools: spectral, prism, curl through bash.
  'fixtures/contract/to-openapi.spectral.test.ts',
  'suites/conform/calibration/prism-mock.test.ts',
  'suites/conform/exchange.test.ts',
  'suites/openapi-proxy/openapi-proxy.test.ts',
  // Real services.
  'sim/connectors/live/servers-live.test.ts',
  'sim/mq9/nats-bridge.test.ts',
  'sim/mqtt-wire/mosquitto-clients.test.ts',
  // Chromium.
  'sim/http/cors-browser.test.ts',
  'suites/conform/writers/html-browser.test.ts',
  // Docker.
  'scripts/docker/docker-image.test.ts',
  'scripts/docker/scratch-image.test.ts',
  'suites/targets/docker-target.test.ts',
];
