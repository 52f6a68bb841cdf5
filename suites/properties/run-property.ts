import fc from 'fast-check';
import { curlOf, responseRecord } from '../conform/exchange.ts';
import { endpointById } from '../../contract/index.ts';
import type { Level } from '../conform/report-model.ts';
import { levelOf } from './core/citations.ts';
import type { PropertyDef } from './core/property-def.ts';
import { fcSeedOf, formatPropertyPath, replayCommand, type PropertyPath } from './property-path.ts';
import type { PropertyResult } from './property-result.ts';
import { PropertyAbort, PropertyViolation } from './core/violation.ts';

/** Suffix of the re-run that looks only at MUST rules, after a failure of a weaker rule. */
export const MUST_ONLY = '.must-only';

export interface RunSettings {
  seed: number;
  numRuns?: number;
  /** Replay exactly this case (no shrinking beyond it). */
  replay?: PropertyPath;
  targetName: string;
  baseUrl: string;
  username?: string;
  /** Flags repeated in replay commands after the target (e.g. `--nodes 5`). */
  replayFlags?: readonly string[];
  /** Stop generating (and shrinking) after this long; a failure found so far is still reported. */
  timeLimitMs?: number;
}

/** What one property run gave: fast-check's run details, or the error with which fast-check refused to run it. */
type Outcome = { propertyId: string; checkId: string; durationMs: number } & (
  { details: fc.RunDetails<[unknown]>; refusedBy?: undefined } | { details?: undefined; refusedBy: unknown }
);

/** Runs one property at a rule threshold with fast-check and its seed. */
export async function runProperty(def: PropertyDef, minLevel: Level, s: RunSettings): Promise<Outcome> {
  const propertyId = minLevel === 'MUST' ? `${def.id}${MUST_ONLY}` : def.id;
  const checkId = minLevel === 'MUST' ? `${def.checkId}${MUST_ONLY}` : def.checkId;
  const started = performance.now();
  const prop = def.build(minLevel, s.replay?.replayPath);
  const params: fc.Parameters<[unknown]> = {
    seed: fcSeedOf(s.seed),
    numRuns: def.ownRuns ? def.numRuns : (s.numRuns ?? def.numRuns),
    ...(s.replay ? { path: s.replay.fcPath, endOnFailure: true } : {}),
    ...(s.timeLimitMs ? { interruptAfterTimeLimit: s.timeLimitMs, markInterruptAsFailure: false } : {}),
  };
  let details: fc.RunDetails<[unknown]>;
  try {
    details = await fc.check(prop, params);
  } catch (e) {
    if (s.replay)
      throw new Error(
        `--property-path ${formatPropertyPath(s.replay)} does not fit property ${def.id} with seed ${s.seed}: ${(e as Error).message}`,
        { cause: e },
      );
    // fast-check itself refused: a harness problem, reported as such (no run details exist).
    return { propertyId, checkId, refusedBy: e, durationMs: performance.now() - started };
  }
  return { propertyId, checkId, details, durationMs: performance.now() - started };
}

function replayPathOf(value: unknown): string | undefined {
  const meta = (value as { metadataForReplay?: () => string } | null)?.metadataForReplay?.();
  return meta ? /replayPath="([^"]*)"/.exec(meta)?.[1] : undefined;
}

/** Check records of one property run, one per endpoint it covers. */
export function resultsOf(def: PropertyDef, o: Outcome, s: RunSettings): PropertyResult[] {
  const d = o.details;
  const base = (endpointId: string) => {
    const e = def.endpoints.find((x) => x.id === endpointId) ?? endpointById(endpointId);
    return {
      endpointId: e.id,
      method: e.method,
      path: e.path,
      id: o.checkId,
      property: o.propertyId,
      seed: s.seed,
      numRuns: d?.numRuns ?? 0,
      durationMs: Math.round(o.durationMs),
    };
  };
  const all = (status: PropertyResult['status'], assertion: string, message: string) =>
    def.endpoints.map((e) => ({ ...base(e.id), status, assertion, level: levelOf(assertion), message }));

  if (d !== undefined && !d.failed) {
    const runs = s.replay ? 'the replayed case' : `${d.numRuns} runs${d.interrupted ? ' (interrupted by the time limit)' : ''}`;
    const seen = def.client.outcomes;
    const vacuous = !seen.ok && !(def.commands ? false : seen.invalid);
    // A run in which nothing was accepted (nor refused, for request properties) reached no behaviour: inconclusive, never a pass.
    return all(
      vacuous ? 'inconclusive' : 'pass',
      def.assertion,
      `${runs} agreed with the ${def.commands ? 'reference model' : 'contract'} (seed ${s.seed}; ${def.client.summary()})${vacuous ? '; inconclusive: no request was accepted' : ''}`,
    );
  }
  const err = d === undefined ? o.refusedBy : d.errorInstance;
  if (err instanceof PropertyAbort) return all('skipped', def.assertion, `not observable on this target: ${err.message}`);
  if (d === undefined || !(err instanceof PropertyViolation)) {
    const text = err instanceof Error ? (err.stack ?? err.message).split('\n').slice(0, 3).join(' | ') : String(err);
    return all(
      'skipped',
      def.assertion,
      `not decided: harness error in property ${o.propertyId} (a bug of mqsim, not a finding about the target): ${text}`,
    );
  }
  const cex = d.counterexample?.[0];
  const fcPath = d.counterexamplePath ?? s.replay?.fcPath ?? '';
  const replayPath = def.commands ? (replayPathOf(cex) ?? s.replay?.replayPath) : undefined;
  const path = formatPropertyPath({ propertyId: o.propertyId, fcPath, ...(replayPath ? { replayPath } : {}) });
  const lines = cex !== undefined ? def.describe(cex) : [];
  const replay = replayCommand(s.targetName, s.seed, path, s.username, s.replayFlags);
  const message = [
    `[${err.rule}] ${err.message}`,
    `seed ${s.seed}, property path ${path} (found after ${d.numRuns} runs, shrunk in ${d.numShrinks} steps)`,
    'counterexample:',
    ...lines.map((l, i) => `  ${i + 1}. ${l}`),
    ...(err.names ? [`names in the failing run: ${err.names}`] : []),
    ...(err.transcript
      ? ['requests of the failing run, in order (curl; the failing list request last, then any diagnosis):', ...err.transcript]
      : []),
    `replay: ${replay}`,
  ].join('\n');
  const failing: PropertyResult = {
    ...base(err.endpointId),
    status: 'fail',
    assertion: err.assertion,
    level: err.level,
    message,
    rule: err.rule,
    counterexamplePath: path,
    counterexample: lines,
    numShrinks: d.numShrinks,
    replay,
    ...(err.exchange
      ? { request: err.exchange.record, response: responseRecord(err.exchange), curl: curlOf(s.baseUrl, err.exchange) }
      : {}),
  };
  const others = def.endpoints
    .filter((e) => e.id !== err.endpointId)
    .map((e) => ({
      ...base(e.id),
      status: 'skipped' as const,
      assertion: def.assertion,
      level: levelOf(def.assertion),
      message: `property ${o.propertyId} stopped at a failure of ${err.endpointId} (see that check); path ${path}`,
    }));
  return [failing, ...others];
}
