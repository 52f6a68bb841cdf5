/**
 * The proof runs of the deviation tests: the simulator served over HTTP with some deviations on, the
 * conformance suites run against it as against any server, and the report handed back. Shared by
 * `deviations-caught.test.ts` (invented bugs), `real-server-findings.test.ts` (the real server's
 * behaviours that break the spec: one finding each) and `real-server-allowed.test.ts` (behaviours the
 * spec allows: no MUST or SHOULD finding).
 */
import { CONTRACT } from '../../contract/index.ts';
import type { Finding, Report } from '../../suites/conform/report-model.ts';
import { runConform } from '../../suites/run/runner.ts';
import { SimTarget } from '../../suites/targets/sim-target.ts';
import type { Deviation } from '../../sim/admin-api/hooks/deviation.ts';

/** Ten virtual minutes of demo history: enough for every check (monitor series, bans), 6x faster to start than an hour. */
const WARM_UP_MS = 600_000;
/** Families every run needs: fixtures live in a tenant; the node list comes from the status endpoint. */
const BASE_TAGS = ['tenants', 'cluster-status'];

export interface ProofRun {
  report: Report;
  /** Why the auth checks could not run (no second loopback address to send from), if so. */
  noRemotePeer?: string;
  ms: number;
}

export interface ProofOptions {
  /** Contract tags to check (default: the whole contract). */
  tags?: ReadonlySet<string>;
  /** Run the property-based suites too (default true, as `mqsim conform` does). */
  properties?: boolean;
  /** Envelope form of the app's own answers (a dialect's). */
  envelope?: 'A' | 'B';
  /**
   * Steps per list history (default PROOF_HISTORY_DEPTH, a quarter of a conformance run's): a proof
   * whose deviation the list histories must catch passes the default depth.
   */
  depth?: number;
}

/** List histories of the proof runs that do not prove a list fault: short, as their property runs are few. */
const PROOF_HISTORY_DEPTH = 100;

/**
 * One conformance run against the served simulator with `deviations` on. The simulator serves no MQTT
 * listener (its ports are nominal, and another broker may answer there), so the run is told so.
 */
export async function conformWith(deviations: readonly string[], options: ProofOptions = {}): Promise<ProofRun> {
  const t0 = performance.now();
  // Served on loopback like `mqsim serve`, with the simulator's control: the checks that need it
  // (a stopped connector, virtual time) run too.
  const target = await SimTarget.start({
    seed: 1,
    nodes: 3,
    workload: 'demo',
    transport: 'loopback',
    warmUpMs: WARM_UP_MS,
    deviations,
    ...(options.envelope ? { envelope: options.envelope } : {}),
  });
  try {
    // The tags select what is checked, as --only does; fixtures and cross-endpoint reads see the whole contract.
    const only = options.tags ? [...options.tags] : undefined;
    // Ten runs per property (thirty by default): enough to meet every rule the deviations touch, in a third of the time.
    const report = await runConform({
      target,
      seed: 1,
      mqtt: 'none',
      ...(only ? { only } : {}),
      properties: options.properties ?? true,
      propertyRuns: 10,
      depth: options.depth ?? PROOF_HISTORY_DEPTH,
    });
    const remote = target.capabilities.remotePeer;
    return {
      report,
      ms: Math.round(performance.now() - t0),
      ...(remote.available ? {} : { noRemotePeer: remote.reason ?? 'unavailable' }),
    };
  } finally {
    await target.close();
  }
}

const tagOf = (endpointId: string) => CONTRACT.find((e) => e.id === endpointId)?.tag;

/** The contract families a deviation's run needs: its endpoints', the base ones and its own extras. */
export function tagsOf(d: Deviation): Set<string> {
  const own = [d.endpoint, ...(d.alsoEndpoints ?? [])].map(tagOf).filter((t): t is string => t !== undefined);
  return new Set([...own, ...BASE_TAGS, ...(d.tags ?? [])]);
}

/** One line per finding, for messages. */
export function describeFindings(findings: readonly Finding[]): string[] {
  return findings.map(
    (f) =>
      `${f.level} ${f.id} on ${f.endpoints.slice(0, 3).join(', ')}${f.endpoints.length > 3 ? ` (+${f.endpoints.length - 3})` : ''}: ${f.title.slice(0, 160)}`,
  );
}

/** `METHOD /path` of a contract endpoint id. */
export function keyOf(endpointId: string): string {
  const e = CONTRACT.find((x) => x.id === endpointId)!;
  return `${e.method} ${e.path}`;
}
