import type { FailOn, Report } from '../suites/conform/report-model.ts';
import { runConform } from '../suites/run/runner.ts';
import { SimTarget } from '../suites/targets/sim-target.ts';
import { checkConformOptions, CONFORM_OPTION_RULES } from './conform-options.ts';
import { internalsOf, type SimulatedCluster } from './create-cluster.ts';

/** Options of {@link conform}. */
export interface ConformOptions {
  /**
   * What to check: `'sim'` (a fresh embedded simulator, as `mqsim conform --target sim`), the base
   * URL of a server (`http://127.0.0.1:58080`), or a cluster made by `createCluster` (checked
   * in-process; the run creates its fixtures in it, stops and starts its nodes and moves its
   * virtual time, so give it a cluster of its own).
   */
  target: 'sim' | string | SimulatedCluster;
  /** Seed of the run's fixture names and property runs, and of the simulator with `'sim'` (default 1). */
  seed?: number;
  /** Log in as this administrator (URL targets; the simulators log in with their own). */
  username?: string;
  /** Password of `username`. */
  password?: string;
  /** The server's token signing secret, so the expired-token check can run (URL targets). */
  jwtSecret?: string;
  /** Local address the auth checks send from as a peer the spec does not exempt from tokens (default 127.0.0.2). */
  peerAddress?: string;
  /** The target's MQTT listener as `HOST:PORT`, or `none` (URL targets; default: detected). */
  mqtt?: string;
  /**
   * Check only endpoints matching these patterns: path globs, endpoint id globs, tags or `METHOD /path`
   * (as `--only`): one string (comma-separated patterns allowed) or an array of them.
   */
  only?: string | readonly string[];
  /** Leave out endpoints matching these patterns (as `--skip`): a string or an array of strings. */
  skip?: string | readonly string[];
  /** Run the property-based suites too (default true). */
  properties?: boolean;
  /** Runs per property (fast-check `numRuns`). */
  propertyRuns?: number;
  /**
   * Steps per list history (the `history.lists` property: writes and filtered, sorted, paged list
   * reads, each answer judged against the acknowledged writes), as `--depth`.
   */
  depth?: number;
  /** Findings from this level up make the verdict `fail` (default `must`). */
  failOn?: FailOn;
  /** Per-request timeout in ms for URL targets (default 10 000). */
  timeoutMs?: number;
  /** Cluster size with `'sim'` (default 3). */
  nodes?: number;
  /** Also write report.json, index.html and junit.xml into this directory. */
  reportDir?: string;
  /** One line per resource family as the run goes. */
  onProgress?: (line: string) => void;
}

/** Every option but `target` has its runtime check: an option added above without one does not compile. */
const OPTIONS_CHECKED: Record<Exclude<keyof ConformOptions, 'target'>, unknown> = CONFORM_OPTION_RULES;
void OPTIONS_CHECKED;

/**
 * Runs the conformance suites against a target and returns the report (`report.verdict`,
 * `report.findings`, MUST first; the same object `mqsim conform --json` prints). When the target
 * stops answering in the middle of the run, the run ends there and the report has `stopped` and one
 * finding `target-stopped` (the case in which `mqsim conform` exits 2 with a report).
 *
 * @throws SetupError when the run cannot start: nothing answers at the URL, it is not this API, or
 * the login is refused (the same cases in which `mqsim conform` exits 2 without a report).
 * @throws SelectionError when an `only` or `skip` pattern matches no endpoint.
 * @throws TypeError when an option is not of its type (naming the option and what it takes) or is no option.
 */
export async function conform(options: ConformOptions): Promise<Report> {
  const { target, seed = 1, ...rest } = checkConformOptions(options);
  const common = {
    seed,
    ...(rest.username !== undefined ? { username: rest.username } : {}),
    ...(rest.password !== undefined ? { password: rest.password } : {}),
    ...(rest.jwtSecret !== undefined ? { jwtSecret: rest.jwtSecret } : {}),
    ...(rest.peerAddress !== undefined ? { peerAddress: rest.peerAddress } : {}),
    ...(rest.mqtt !== undefined ? { mqtt: rest.mqtt } : {}),
    ...(rest.only !== undefined ? { only: rest.only } : {}),
    ...(rest.skip !== undefined ? { skip: rest.skip } : {}),
    ...(rest.properties !== undefined ? { properties: rest.properties } : {}),
    ...(rest.propertyRuns !== undefined ? { propertyRuns: rest.propertyRuns } : {}),
    ...(rest.depth !== undefined ? { depth: rest.depth } : {}),
    ...(rest.failOn !== undefined ? { failOn: rest.failOn } : {}),
    ...(rest.timeoutMs !== undefined ? { timeoutMs: rest.timeoutMs } : {}),
    ...(rest.nodes !== undefined ? { nodes: rest.nodes } : {}),
    ...(rest.reportDir !== undefined ? { reportDir: rest.reportDir } : {}),
    ...(rest.onProgress !== undefined ? { onProgress: rest.onProgress } : {}),
  };
  if (typeof target === 'string') return runConform({ target, ...common });
  const internals = target !== null && typeof target === 'object' ? internalsOf(target) : undefined;
  if (!internals) throw new TypeError('conform: target must be "sim", a URL, or a cluster made by createCluster()');
  const o = target.options;
  const name = `cluster(seed ${o.seed}, ${o.nodes} nodes, ${o.workload}, ${o.dialect})`;
  const sim = SimTarget.attach(internals.model, internals.app, {
    name,
    ...(rest.peerAddress !== undefined ? { peerAddress: rest.peerAddress } : {}),
  });
  try {
    return await runConform({
      target: sim,
      ...common,
      replay: `conform({ target: createCluster({ seed: ${JSON.stringify(o.seed)}, nodes: ${o.nodes}, workload: '${o.workload}', dialect: '${o.dialect}' }), seed: ${seed}${rest.depth !== undefined ? `, depth: ${rest.depth}` : ''} }) on a fresh cluster`,
    });
  } finally {
    await sim.close();
  }
}
