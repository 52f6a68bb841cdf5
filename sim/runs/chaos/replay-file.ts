import { isInteger, isOneOf, isRecord } from '../../model/api/json-guards.ts';
import { CHAOS_BUGS, CHAOS_FAULT_KINDS, type ChaosOptions, type ChaosStep } from './chaos-plan.ts';

/**
 * A saved run: the options and the explicit step list (not only the seed), so a shrunk plan, which no
 * seed generates, replays as well as a generated one. `expect` is what the run produced.
 */
export interface ReplayFile {
  format: 'mqsim-chaos-replay/1';
  options: ChaosOptions;
  plan: ChaosStep[];
  expect: { trace_hash: string; events: number; violations: string[] };
  /** When this plan was shrunk from a longer failing one: its length. */
  shrunk_from?: number;
}

export function parseReplayFile(text: string, where: string): ReplayFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`${where} is not JSON: ${(e as Error).message}`, { cause: e });
  }
  if (!isRecord(data) || data.format !== 'mqsim-chaos-replay/1')
    throw new Error(`${where} is not a chaos replay file (format must be "mqsim-chaos-replay/1")`);
  const o = data.options;
  if (!isRecord(o) || typeof o.seed !== 'string' || !isInteger(o.nodes) || !Array.isArray(o.faults) || !Array.isArray(data.plan))
    throw new Error(`${where}: options {seed, nodes, faults} and plan are required`);
  const faults = o.faults.map((f: unknown) => {
    if (!isOneOf(CHAOS_FAULT_KINDS, f)) throw new Error(`${where}: unknown fault kind ${f}`);
    return f;
  });
  const bug = o.bug ?? null;
  if (bug !== null && !isOneOf(CHAOS_BUGS, bug)) throw new Error(`${where}: unknown bug ${bug}`);
  const steps = isInteger(o.steps) ? o.steps : data.plan.length;
  // The plan's steps and `expect` are read as written: a replay re-runs them and compares its own outcome.
  return { ...data, options: { seed: o.seed, steps, nodes: o.nodes, faults, bug } } as ReplayFile;
}
