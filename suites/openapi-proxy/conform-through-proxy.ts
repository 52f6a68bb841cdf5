import { runConform } from '../run/runner.ts';
import type { Report } from '../conform/report-model.ts';
import { SIM_ADMIN, SimTarget } from '../targets/sim-target.ts';
import { UrlTarget } from '../targets/url-target.ts';
import { startPrismProxy } from './prism-proxy.ts';
import { ViolationRecordingTarget, type ProxiedExchange } from './violation-recording-target.ts';

export interface ConformThroughProxyOptions {
  /** Path of the OpenAPI document Prism checks the answers against. */
  document: string;
  seed: number;
  /** Envelope form the simulator answers in (default A, as `mqsim serve`). */
  envelope?: 'A' | 'B';
  /** Run the property-based suites too (default true). */
  properties?: boolean;
  /** Virtual history of the demo workload, in ms. */
  warmUpMs?: number;
}

export interface ProxiedRun {
  report: Report;
  /** Every answer of the run, with what Prism said about it, in the order they came. */
  exchanges: ProxiedExchange[];
  /** Wall time to start the simulator and Prism, and to run the suites, in ms. */
  startMs: number;
  suitesMs: number;
}

/**
 * Serves the simulator on loopback, puts `prism proxy` with `document` in front of it, and runs the
 * conformance suites through the proxy (with the simulator's control interface, so every scenario
 * runs), recording every answer and its violations. Stops everything it started before returning.
 */
export async function conformThroughProxy(options: ConformThroughProxyOptions): Promise<ProxiedRun> {
  const started = performance.now();
  const sim = await SimTarget.start({
    seed: options.seed,
    transport: 'loopback',
    ...(options.envelope ? { envelope: options.envelope } : {}),
    ...(options.warmUpMs !== undefined ? { warmUpMs: options.warmUpMs } : {}),
  });
  try {
    const proxy = await startPrismProxy({ document: options.document, upstream: sim.nodeUrls[0] });
    try {
      const name = 'sim via prism proxy';
      const inner = await UrlTarget.create({
        url: proxy.url,
        name,
        username: SIM_ADMIN.username,
        password: SIM_ADMIN.password,
        signingSecret: SIM_ADMIN.jwtSecret,
      });
      const target = new ViolationRecordingTarget({ inner, name, control: sim.control, signingSecret: SIM_ADMIN.jwtSecret });
      try {
        const ready = performance.now();
        const report = await runConform({ target, seed: options.seed, ...(options.properties === false ? { properties: false } : {}) });
        return { report, exchanges: target.exchanges, startMs: ready - started, suitesMs: performance.now() - ready };
      } finally {
        await target.close();
      }
    } finally {
      await proxy.stop();
    }
  } finally {
    await sim.close();
  }
}
