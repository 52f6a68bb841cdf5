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
  let data: any;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`${where} is not JSON: ${(e as Error).message}`);
  }
  if (data?.format !== 'mqsim-chaos-replay/1')
    throw new Error(`${where} is not a chaos replay file (format must be "mqsim-chaos-replay/1")`);
  const o = data.options;
  if (!o || typeof o.seed !== 'string' || !Number.isInteger(o.nodes) || !Array.isArray(o.faults) || !Array.isArray(data.plan))
    throw new Error(`${where}: options {seed, nodes, faults} and plan are required`);
  for (const f of o.faults) if (!(CHAOS_FAULT_KINDS as readonly string[]).includes(f)) throw new Error(`${where}: unknown fault kind ${f}`);
  if (o.bug !== null && o.bug !== undefined && !(CHAOS_BUGS as readonly string[]).includes(o.bug))
    throw new Error(`${where}: unknown bug ${o.bug}`);
  return {
    ...data,
    options: { seed: o.seed, steps: o.steps ?? data.plan.length, nodes: o.nodes, faults: o.faults, bug: o.bug ?? null },
  } as ReplayFile;
}
