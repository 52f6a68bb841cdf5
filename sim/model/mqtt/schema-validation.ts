import { Ajv, type ValidateFunction } from 'ajv';
import type { MqttBrokerDeps } from './peer-parts.ts';
import type { Schema } from '../broker/schemas.ts';
import { topicMatches } from '../topic-filter/topic-filter.ts';

/** Why a payload does not match one schema, or undefined when it does. */
type Check = (payload: string) => string | undefined;

/** The outcome of validating one publish against the schemas bound to its topic. */
export type SchemaVerdict = { ok: true; checked: number } | { ok: false; problems: string[] };

const AVRO_PRIMITIVE_CHECK: Record<string, (v: unknown) => boolean> = {
  null: (v) => v === null,
  boolean: (v) => typeof v === 'boolean',
  int: (v) => Number.isInteger(v),
  long: (v) => Number.isInteger(v),
  float: (v) => typeof v === 'number',
  double: (v) => typeof v === 'number',
  string: (v) => typeof v === 'string',
  bytes: (v) => typeof v === 'string',
};

/** Does `value` fit an avro type (primitives, unions and nested records; other types are accepted). */
function avroFits(type: unknown, value: unknown): boolean {
  if (typeof type === 'string') return AVRO_PRIMITIVE_CHECK[type]?.(value) ?? true;
  if (Array.isArray(type)) return type.some((t) => avroFits(t, value));
  if (type && typeof type === 'object') {
    const t = type as { type?: unknown; fields?: unknown };
    if (t.type === 'record') return avroRecordProblem(t, value) === undefined;
    if (t.type === 'array') return Array.isArray(value);
    if (t.type === 'map') return value !== null && typeof value === 'object' && !Array.isArray(value);
    if (t.type === 'enum') return typeof value === 'string';
    if (typeof t.type === 'string' && t.type in AVRO_PRIMITIVE_CHECK) return avroFits(t.type, value);
  }
  return true;
}

/** A JSON-encoded avro record: every field present (or defaulted) with a value of its type. */
function avroRecordProblem(schema: { fields?: unknown }, value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'payload is not a JSON object (avro record)';
  const fields = Array.isArray(schema.fields) ? (schema.fields as { name?: unknown; type?: unknown; default?: unknown }[]) : [];
  const obj = value as Record<string, unknown>;
  for (const f of fields) {
    if (typeof f?.name !== 'string') continue;
    if (!(f.name in obj)) {
      if ('default' in f || (Array.isArray(f.type) && f.type.includes('null'))) continue;
      return `field ${f.name} is missing`;
    }
    if (!avroFits(f.type, obj[f.name])) return `field ${f.name} does not match its avro type ${JSON.stringify(f.type)}`;
  }
  return undefined;
}

function parseJson(payload: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(payload) };
  } catch (e) {
    return { error: `payload is not JSON (${(e as Error).message})` };
  }
}

/**
 * Validation of published messages against the schemas bound to their topic (MqttSchema config).
 * `json`: JSON Schema with ajv. `avro`: the payload is read as the JSON encoding of the value and
 * checked against record field names and primitive/union/record types. `protobuf`: payloads are
 * binary in practice and the simulator does not decode them, so they are accepted unchecked.
 * Compiled checks are cached per schema text.
 */
export class SchemaValidation {
  private readonly ajv = new Ajv({ allErrors: false, strict: false });
  private readonly compiled = new Map<string, Check>();

  constructor(private readonly deps: Pick<MqttBrokerDeps, 'schemas'>) {}

  /** The schemas bound to a topic: a binding's resource is the topic name or a topic filter. */
  boundSchemas(tenant: string, topic: string): Schema[] {
    const out: Schema[] = [];
    for (const b of this.deps.schemas.allBindings()) {
      if (b.tenant !== tenant) continue;
      if (b.resource_name !== topic && !topicMatches(b.resource_name, topic)) continue;
      const s = this.deps.schemas.get(tenant, b.schema_name);
      if (s && !out.includes(s)) out.push(s);
    }
    return out;
  }

  /** Strict: the payload must match ALL bound schemas; Forward: ANY of them. No binding: ok. */
  validate(tenant: string, topic: string, payload: string, strategy: 'Forward' | 'Strict'): SchemaVerdict {
    const schemas = this.boundSchemas(tenant, topic);
    if (schemas.length === 0) return { ok: true, checked: 0 };
    const problems: string[] = [];
    for (const s of schemas) {
      const problem = this.checkOf(s)(payload);
      if (problem) problems.push(`schema ${s.name} (${s.schema_type}): ${problem}`);
    }
    const ok = strategy === 'Strict' ? problems.length === 0 : problems.length < schemas.length;
    return ok ? { ok: true, checked: schemas.length } : { ok: false, problems };
  }

  private checkOf(s: Schema): Check {
    const key = `${s.schema_type}\u0000${s.schema}`;
    let check = this.compiled.get(key);
    if (!check) {
      check = this.compile(s);
      this.compiled.set(key, check);
    }
    return check;
  }

  private compile(s: Schema): Check {
    if (s.schema_type === 'protobuf') return () => undefined;
    const schema = JSON.parse(s.schema) as unknown;
    if (s.schema_type === 'json') {
      let validate: ValidateFunction;
      try {
        validate = this.ajv.compile(schema as object);
      } catch (e) {
        const why = `schema does not compile (${(e as Error).message})`;
        return () => why;
      }
      return (payload) => {
        const parsed = parseJson(payload);
        if ('error' in parsed) return parsed.error;
        if (validate(parsed.value)) return undefined;
        const err = validate.errors?.[0];
        return err ? `${err.instancePath || '/'} ${err.message ?? 'is invalid'}` : 'does not match';
      };
    }
    return (payload) => {
      const parsed = parseJson(payload);
      if ('error' in parsed) return parsed.error;
      const t = schema as { type?: unknown };
      if (t && typeof t === 'object' && !Array.isArray(t) && t.type === 'record')
        return avroRecordProblem(t as { fields?: unknown }, parsed.value);
      return avroFits(schema, parsed.value) ? undefined : `value does not match the avro type ${JSON.stringify(schema)}`;
    };
  }
}
