import { Ajv, type ErrorObject } from 'ajv';
import { CHAOS_BUGS, type ChaosBug } from '../chaos/chaos-plan.ts';

/**
 * A named, reviewable chaos scenario: phases setup → workload → faults → heal, then eventually-checks
 * that must all hold within a virtual-time deadline. Format `mqsim-scenario/1`; see docs/chaos.md
 * (Scenario files) and `fixtures/scenarios/*.json`.
 */
export interface ScenarioFile {
  format: 'mqsim-scenario/1';
  name: string;
  description: string;
  seed: string;
  nodes: number;
  /** A deliberately buggy model variant (the CLI's --bug overrides it). */
  bug?: ChaosBug | null;
  setup?: ScenarioStep[];
  workload?: ScenarioStep[];
  faults?: ScenarioStep[];
  heal?: ScenarioStep[];
  eventually: { within_ms: number; poll_ms?: number; checks: ScenarioCheck[] };
}

/**
 * A node named by id or by a selector resolved when the step runs: `topic-leader:TENANT/TOPIC` (the
 * leader of the topic's first partition's active segment), `topic-followers:TENANT/TOPIC` (its other
 * replicas), `group-leader:GROUP` (the leader of a consensus group, e.g. `meta`).
 */
export type NodeRef = number | string;

export type ScenarioFault =
  | { kind: 'crash' | 'stop' | 'restart' | 'leave' | 'rejoin' | 'isolate'; node: NodeRef }
  | { kind: 'restart-all' | 'heal' }
  | { kind: 'partition'; side: NodeRef[] }
  | { kind: 'loss'; loss: number; duplicate?: number; jitterMs?: number }
  | { kind: 'clock'; jumpMs: number }
  | { kind: 'skew'; node: NodeRef; offsetMs: number }
  | { kind: 'connector'; target: string; down: boolean }
  | { kind: 'flapping'; clientId: string; attempts: number; tenant?: string };

export type ScenarioStep =
  | { wait_ms: number }
  | {
      api: { method: 'GET' | 'POST'; path: string; body?: Record<string, unknown> };
      /** Runs the call this many times; `{i}` in strings of the body becomes 0..repeat-1. */
      repeat?: number;
      /** Virtual ms before each call (default 50: above the per-path rate-limit spacing). */
      gap_ms?: number;
      /** What the answer must be: code 0 (`ok`) or a refusal (`refused`); a mismatch fails the scenario. */
      expect?: 'ok' | 'refused';
      /** With expect refused: text the message must contain. */
      message_contains?: string;
    }
  | { fault: ScenarioFault };

export type ScenarioCheck =
  | { check: 'leader-per-group' }
  | { check: 'node-count'; equals: number }
  | { check: 'topic-acked'; tenant: string; topic: string; min_acked?: number }
  | { check: 'isr-size'; tenant: string; topic: string; min: number }
  | {
      check: 'connector';
      tenant: string;
      connector: string;
      status?: string;
      dead_letters_min?: number;
      dead_letters_max?: number;
      fail_min?: number;
      sent_min?: number;
    }
  | { check: 'client-banned-then-admitted'; tenant?: string; client: string }
  | { check: 'record-timestamps-skewed'; tenant: string; topic: string; offsetMs: number }
  | { check: 'api'; method: 'GET' | 'POST'; path: string; body?: Record<string, unknown>; code?: number; data_length_min?: number };

const nodeRef = {
  oneOf: [
    { type: 'integer', minimum: 1, maximum: 9 },
    { type: 'string', pattern: '^(topic-leader|topic-followers):[^/]+/.+$|^group-leader:[a-z]+$' },
  ],
};
const apiCall = {
  type: 'object',
  required: ['method', 'path'],
  additionalProperties: false,
  properties: { method: { enum: ['GET', 'POST'] }, path: { type: 'string', pattern: '^/' }, body: { type: 'object' } },
};
const fault = {
  type: 'object',
  required: ['kind'],
  properties: {
    kind: {
      enum: [
        'crash',
        'stop',
        'restart',
        'leave',
        'rejoin',
        'isolate',
        'restart-all',
        'heal',
        'partition',
        'loss',
        'clock',
        'skew',
        'connector',
        'flapping',
      ],
    },
  },
  allOf: [
    {
      if: { properties: { kind: { enum: ['crash', 'stop', 'restart', 'leave', 'rejoin', 'isolate'] } } },
      then: { required: ['node'], properties: { node: nodeRef } },
    },
    {
      if: { properties: { kind: { const: 'partition' } } },
      then: { required: ['side'], properties: { side: { type: 'array', minItems: 1, items: nodeRef } } },
    },
    {
      if: { properties: { kind: { const: 'loss' } } },
      then: {
        required: ['loss'],
        properties: {
          loss: { type: 'number', minimum: 0, maximum: 1 },
          duplicate: { type: 'number', minimum: 0, maximum: 1 },
          jitterMs: { type: 'integer', minimum: 0 },
        },
      },
    },
    {
      if: { properties: { kind: { const: 'clock' } } },
      then: { required: ['jumpMs'], properties: { jumpMs: { type: 'integer', minimum: 1 } } },
    },
    {
      if: { properties: { kind: { const: 'skew' } } },
      then: {
        required: ['node', 'offsetMs'],
        properties: { node: nodeRef, offsetMs: { type: 'integer', minimum: -86_400_000, maximum: 86_400_000 } },
      },
    },
    {
      if: { properties: { kind: { const: 'connector' } } },
      then: { required: ['target', 'down'], properties: { target: { type: 'string', minLength: 1 }, down: { type: 'boolean' } } },
    },
    {
      if: { properties: { kind: { const: 'flapping' } } },
      then: {
        required: ['clientId', 'attempts'],
        properties: {
          clientId: { type: 'string', minLength: 1 },
          attempts: { type: 'integer', minimum: 1, maximum: 1000 },
          tenant: { type: 'string' },
        },
      },
    },
  ],
};
/** A step is a wait, an API call or a fault, told apart by which key it has (so errors name the right field). */
const step = {
  type: 'object',
  additionalProperties: false,
  properties: {
    wait_ms: { type: 'integer', minimum: 1, maximum: 86_400_000 },
    api: apiCall,
    repeat: { type: 'integer', minimum: 1, maximum: 100_000 },
    gap_ms: { type: 'integer', minimum: 0, maximum: 86_400_000 },
    expect: { enum: ['ok', 'refused'] },
    message_contains: { type: 'string' },
    fault,
  },
  if: { required: ['api'] },
  then: { not: { anyOf: [{ required: ['fault'] }, { required: ['wait_ms'] }] } },
  else: {
    if: { required: ['fault'] },
    then: { maxProperties: 1 },
    else: { required: ['wait_ms'], maxProperties: 1 },
  },
};
const topicRef = { tenant: { type: 'string', minLength: 1 }, topic: { type: 'string', minLength: 1 } };
const check = {
  type: 'object',
  required: ['check'],
  properties: {
    check: {
      enum: [
        'leader-per-group',
        'node-count',
        'topic-acked',
        'isr-size',
        'connector',
        'client-banned-then-admitted',
        'record-timestamps-skewed',
        'api',
      ],
    },
  },
  allOf: [
    {
      if: { properties: { check: { const: 'node-count' } } },
      then: { required: ['equals'], properties: { equals: { type: 'integer', minimum: 0 } } },
    },
    {
      if: { properties: { check: { const: 'topic-acked' } } },
      then: { required: ['tenant', 'topic'], properties: { ...topicRef, min_acked: { type: 'integer', minimum: 0 } } },
    },
    {
      if: { properties: { check: { const: 'isr-size' } } },
      then: { required: ['tenant', 'topic', 'min'], properties: { ...topicRef, min: { type: 'integer', minimum: 1 } } },
    },
    {
      if: { properties: { check: { const: 'connector' } } },
      then: {
        required: ['tenant', 'connector'],
        properties: {
          tenant: { type: 'string' },
          connector: { type: 'string' },
          status: { enum: ['Idle', 'Running', 'Stopped'] },
          dead_letters_min: { type: 'integer', minimum: 0 },
          dead_letters_max: { type: 'integer', minimum: 0 },
          fail_min: { type: 'integer', minimum: 0 },
          sent_min: { type: 'integer', minimum: 0 },
        },
      },
    },
    {
      if: { properties: { check: { const: 'client-banned-then-admitted' } } },
      then: { required: ['client'], properties: { client: { type: 'string', minLength: 1 }, tenant: { type: 'string' } } },
    },
    {
      if: { properties: { check: { const: 'record-timestamps-skewed' } } },
      then: { required: ['tenant', 'topic', 'offsetMs'], properties: { ...topicRef, offsetMs: { type: 'integer', minimum: 1 } } },
    },
    {
      if: { properties: { check: { const: 'api' } } },
      then: {
        required: ['method', 'path'],
        properties: {
          method: { enum: ['GET', 'POST'] },
          path: { type: 'string', pattern: '^/' },
          body: { type: 'object' },
          code: { type: 'integer' },
          data_length_min: { type: 'integer', minimum: 0 },
        },
      },
    },
  ],
};
const phase = { type: 'array', items: step };

/** JSON Schema (draft-07) of a scenario file. */
const SCENARIO_SCHEMA = {
  $id: 'https://mqsim.dev/schemas/scenario-1.json',
  type: 'object',
  required: ['format', 'name', 'description', 'seed', 'nodes', 'eventually'],
  additionalProperties: false,
  properties: {
    format: { const: 'mqsim-scenario/1' },
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,63}$' },
    description: { type: 'string', minLength: 1 },
    seed: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
    nodes: { type: 'integer', minimum: 1, maximum: 9 },
    bug: { oneOf: [{ type: 'null' }, { enum: [...CHAOS_BUGS] }] },
    setup: phase,
    workload: phase,
    faults: phase,
    heal: phase,
    eventually: {
      type: 'object',
      required: ['within_ms', 'checks'],
      additionalProperties: false,
      properties: {
        within_ms: { type: 'integer', minimum: 1, maximum: 86_400_000 },
        poll_ms: { type: 'integer', minimum: 1, maximum: 3_600_000 },
        checks: { type: 'array', minItems: 1, items: check },
      },
    },
  },
} as const;

const validate = new Ajv({ allErrors: false, strict: false }).compile(SCENARIO_SCHEMA);

/** One line per problem, naming the field (JSON pointer into the file) and what is wrong. */
function describe(errors: ErrorObject[]): string {
  // oneOf/if failures come with the detailed cause first; report the most specific one.
  const e = errors[0];
  const field = e.instancePath || '(top level)';
  const extra =
    e.keyword === 'additionalProperties'
      ? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
      : e.keyword === 'enum'
        ? `: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`
        : '';
  return `${field} ${e.message}${extra}`;
}

/** Parses and validates a scenario file; throws a message naming the file and the bad field. */
export function parseScenarioFile(text: string, where: string): ScenarioFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`${where} is not JSON: ${(e as Error).message}`, { cause: e });
  }
  if (!validate(data)) throw new Error(`${where}: invalid scenario: ${describe(validate.errors ?? [])}`);
  return data as ScenarioFile;
}
