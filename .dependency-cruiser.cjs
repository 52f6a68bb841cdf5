// Package boundaries of the repository, checked by dependency-cruiser (`npm run deps`, part of `npm test`).
// The layers, bottom up: fixtures/ (data: saved scenarios, replays, report samples) ← contract/ (the API as
// data, which every layer reads) ← sim/ (the simulator)
// and suites/ (the conformance suites, which see any server through a Target) ← lib/ and scripts/ (the
// library API and the CLI, which put the two together). A rule names what a layer must not import.

/** The one module of suites/ that may import sim/: the target that serves the simulator to the suites. */
const SIM_ADAPTER = '^suites/targets/sim-target\\.ts$';

/** Tests and the helpers only tests import: they may drive the model through the in-process HTTP client. */
const TEST_CODE = '(\\.test\\.ts$|/testing/|test-support\\.ts$|-test-kit\\.ts$|-test-harness\\.ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'sim-not-above',
      comment: 'sim/ is the simulator: it never imports the suites, the CLI or the library API (its tests neither).',
      severity: 'error',
      from: { path: '^sim/' },
      to: { path: '^(suites|scripts|lib|bin|examples)/' },
    },
    {
      name: 'suites-only-through-sim-adapter',
      comment:
        'The suites check the simulator as any other server: only the sim target adapter (suites/targets/sim-target.ts) imports sim/.',
      severity: 'error',
      from: { path: '^suites/', pathNot: SIM_ADAPTER },
      to: { path: '^sim/' },
    },
    {
      name: 'suites-not-above',
      comment: 'suites/ never imports the library API, the CLI or the scripts, which import sim/ (a back door around the adapter).',
      severity: 'error',
      from: { path: '^suites/' },
      to: { path: '^(scripts|lib|bin|examples)/' },
    },
    {
      name: 'contract-is-a-leaf',
      comment: 'contract/ describes the API: it imports neither the simulator nor the suites nor the tools.',
      severity: 'error',
      from: { path: '^contract/' },
      to: { path: '^(sim|suites|scripts|lib|bin|examples)/' },
    },
    {
      name: 'fixtures-not-above',
      comment: 'fixtures/ is data the other layers read: outside its tests it imports none of them, the contract neither.',
      severity: 'error',
      from: { path: '^fixtures/', pathNot: '\\.test\\.ts$' },
      to: { path: '^(contract|sim|suites|scripts|lib|bin|examples)/' },
    },
    {
      name: 'model-no-io',
      comment:
        'sim/model/ (the deterministic model) and sim/admin-api/ (the admin HTTP API over it, without sockets) never import sim/io/ (HTTP listeners, MQTT wire, NATS, live connectors, state file, MCP, control). The I/O adapters call them, and give them what they need as narrow interfaces (the wall clock of the live mode included).',
      severity: 'error',
      from: { path: '^sim/(model|admin-api)/', pathNot: TEST_CODE },
      to: { path: '^sim/io/' },
    },
    {
      name: 'model-not-above',
      comment: 'sim/model/ never imports sim/runs/ (chaos, scenarios), which drive it.',
      severity: 'error',
      from: { path: '^sim/model/' },
      to: { path: '^sim/runs/' },
    },
    {
      name: 'model-below-admin-api',
      comment:
        'sim/model/ never imports sim/admin-api/, which maps requests onto it (its tests may drive it through the in-process client).',
      severity: 'error',
      from: { path: '^sim/model/', pathNot: TEST_CODE },
      to: { path: '^sim/admin-api/' },
    },
    {
      name: 'admin-api-not-above',
      comment:
        'sim/admin-api/ never imports what builds on it: the runs that drive it, the switch catalogue, the faults and dialects (its callers resolve switch ids and hand it the switches), so a switch can use its request and hook types.',
      severity: 'error',
      from: { path: '^sim/admin-api/', pathNot: TEST_CODE },
      to: { path: '^sim/(runs|switches|faults|dialects)/' },
    },
    {
      name: 'runs-no-io',
      comment:
        'sim/runs/ (chaos, scenarios) replays exactly: it drives the model through the admin API in-process (sim/admin-api/in-process-client.ts), which has no socket and no wall clock, and never imports sim/io/.',
      severity: 'error',
      from: { path: '^sim/runs/', pathNot: TEST_CODE },
      to: { path: '^sim/io/' },
    },
    {
      name: 'model-no-real-io',
      comment:
        'sim/model/, sim/admin-api/ and sim/runs/ do no real I/O: no sockets, files, processes or real clients (those are sim/io/); sim/determinism.test.ts keeps wall clock, Math.random and timers out of them.',
      severity: 'error',
      from: { path: '^sim/(model|admin-api|runs)/', pathNot: TEST_CODE },
      to: {
        path: '^(node:)?(net|http|https|http2|tls|dgram|fs|fs/promises|child_process|worker_threads|cluster|readline)$|^node_modules/(undici|nats|mqtt|mqtt-packet|pg|ioredis|amqplib|mysql2)/',
      },
    },
    {
      name: 'no-circular',
      comment:
        'No import cycle inside sim/ or suites/ (type imports included): parts get their peers as narrow interfaces from the composition root (sim/model/cluster/compose-cluster.ts); shared types live in leaf modules.',
      severity: 'error',
      from: { path: '^(sim|suites)/' },
      to: { circular: true },
    },
    {
      name: 'core-not-above',
      comment:
        "A core/ folder (contract/core/, sim/admin-api/core/, sim/dialects/robustmq/core/, suites/properties/core/) holds what its parent folder's parts are written in: it imports nothing of that parent outside itself, so the parent can import its child folders and no two import each other.",
      severity: 'error',
      from: { path: '^(.+)/core/', pathNot: TEST_CODE },
      to: { path: '^$1/', pathNot: '^$1/core/' },
    },
    {
      name: 'checkpoint-below-serve',
      comment:
        'scripts/cli/checkpoint/ (building, checking and restoring checkpoints) imports nothing of the rest of the CLI: serve hands it the state file, the model options and the interval, and the two ends that run serve (checkpoint-entry.ts, checkpoint-restored.ts) sit beside serve in scripts/cli/.',
      severity: 'error',
      from: { path: '^scripts/cli/checkpoint/', pathNot: TEST_CODE },
      to: { path: '^scripts/cli/', pathNot: '^scripts/cli/checkpoint/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to no file is a typo or a missing dependency.',
      severity: 'error',
      from: { path: '^(contract|sim|suites|fixtures|lib|scripts)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|reports|coverage)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
