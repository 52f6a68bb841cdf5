import fastJson from 'fast-json-stringify';
import type { EndpointContract, JsonSchema } from '../../contract/core/types.ts';
import type { EnvelopeForm } from './envelope.ts';

/**
 * Response bodies written by serializers compiled from the contract's schemas (fast-json-stringify):
 * the envelope around each endpoint's `data` schema becomes one function that writes the body in a
 * single pass, instead of JSON.stringify walking every record generically.
 *
 * The bytes must stay those of JSON.stringify. A compiled writer writes the properties its schema
 * lists, in the schema's order, so the contract lists every field the simulator sends, in the order
 * it sends them (fields the spec does not list are optional there). Verification mode
 * (`MQSIM_VERIFY_WRITERS=1`) writes each body both ways and throws on any difference; the writers
 * test runs the conformance suites against the simulator in that mode.
 */

/** Writes one response body. */
export type BodyWriter = (body: unknown) => string;

/** Keywords that only describe or constrain values: a writer writes what it is given, the suites check it. */
const NOT_FOR_WRITING = new Set([
  'description',
  'required',
  'pattern',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'format',
  'const',
  'enum',
]);

/**
 * The schema a writer is compiled from: the contract schema's shape (types, properties in order,
 * items, maps), without the keywords that check values. An object that lists no properties (the
 * spec gives none) is written whole. A choice of shapes (anyOf) becomes one the writer tells apart
 * by the value's type (see writerOfChoice), never a schema it would have to validate the value against.
 */
function writerSchema(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) return writerOfChoice(schema.anyOf.filter(isSchema));
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    // fast-json-stringify writes required properties first, out of the listed order.
    if (NOT_FOR_WRITING.has(key) || key.startsWith('x-')) continue;
    if (key === 'properties' && isSchema(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, isSchema(s) ? writerSchema(s) : s]));
    } else if ((key === 'items' || key === 'additionalProperties') && isSchema(value)) {
      out[key] = writerSchema(value);
    } else {
      out[key] = value;
    }
  }
  // Integers are written as numbers: the same digits for an integer, and a fraction stays a fraction
  // (an integer writer would truncate it, silently changing the answer).
  if (out.type === 'integer') out.type = 'number';
  // A constant's type (TypeBox writes one; a bare `const` is still a string or a number).
  if (out.type === undefined && schema.const !== undefined) out.type = typeof schema.const === 'string' ? 'string' : 'number';
  if (out.type === 'object' && out.properties === undefined && out.additionalProperties === undefined) out.additionalProperties = true;
  return out;
}

/**
 * The writer schema of a choice of shapes. fast-json-stringify picks an anyOf branch by validating
 * the value with ajv, which compiles its validators on first use (hundreds of ms on a first
 * request) and costs a validation per value; a choice the value's JSON type decides needs none:
 * - a shape or null: that shape, `nullable`;
 * - shapes of distinct types (an array or an object, an array or a string): a list of types;
 * - two object shapes (a Raft state, or a map of them): written whole, as JSON.stringify writes it.
 */
function writerOfChoice(branches: readonly JsonSchema[]): JsonSchema {
  const shapes = branches.filter((b) => b.type !== 'null').map((b) => writerSchema(b));
  const nullable = shapes.length < branches.length;
  if (shapes.length === 1) return shapes[0].type === undefined ? shapes[0] : { ...shapes[0], ...(nullable ? { nullable: true } : {}) };
  const types = shapes.map((s) => s.type);
  if (types.every((t) => typeof t === 'string') && new Set(types).size === types.length) {
    return Object.assign({}, ...shapes, { type: nullable ? [...types, 'null'] : types });
  }
  return {};
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const INTEGER = { type: 'integer' };
const STRING = { type: 'string' };

/** `data` of a list endpoint: one page of records and the count of all matching ones (sim/model/api/list-reference.ts Page). */
function pageSchema(record: JsonSchema): JsonSchema {
  return { type: 'object', properties: { data: { type: 'array', items: record }, total_count: INTEGER } };
}

/** The success envelope of `form` around `data` (envelope.ts successEnvelope). */
function successSchema(form: EnvelopeForm, data: JsonSchema): JsonSchema {
  return form === 'A'
    ? { type: 'object', properties: { code: INTEGER, message: STRING, data } }
    : { type: 'object', properties: { code: INTEGER, data, error: { type: 'null' } } };
}

/** The failure envelope of `form` (envelope.ts failureEnvelope). */
function failureSchema(form: EnvelopeForm): JsonSchema {
  return form === 'A'
    ? { type: 'object', properties: { code: INTEGER, message: STRING, data: { type: 'null' } } }
    : { type: 'object', properties: { code: INTEGER, data: STRING, error: STRING } };
}

function compile(schema: JsonSchema): BodyWriter {
  const write = fastJson(schema);
  return (body) => write(body);
}

/** The `data` schema a success of `endpoint` is written with, or undefined when the contract gives none. */
function dataSchemaOf(endpoint: EndpointContract): JsonSchema | undefined {
  const data = endpoint.response.kind === 'envelope' ? endpoint.response.data : endpoint.response.jsonForm;
  if (!data) return undefined;
  return endpoint.list ? pageSchema(writerSchema(data)) : writerSchema(data);
}

/**
 * Compiled writers, shared by every app of the process (compiling is the expensive part), made on
 * first use so a start-up does not pay for endpoints it never answers.
 */
const successWriters = new WeakMap<EndpointContract, Map<EnvelopeForm, BodyWriter>>();
const failureWriters = new Map<EnvelopeForm, BodyWriter>();

/** The writer of a success envelope of `endpoint` in `form`; JSON.stringify when its contract gives no `data` schema. */
export function successWriter(endpoint: EndpointContract, form: EnvelopeForm): BodyWriter {
  let byForm = successWriters.get(endpoint);
  if (!byForm) successWriters.set(endpoint, (byForm = new Map()));
  let writer = byForm.get(form);
  if (!writer) {
    const data = dataSchemaOf(endpoint);
    writer = data ? compile(successSchema(form, data)) : JSON.stringify;
    byForm.set(form, writer);
  }
  return writer;
}

/** The writer of a failure envelope in `form` (every endpoint's, and answers before routing). */
export function failureWriter(form: EnvelopeForm): BodyWriter {
  let writer = failureWriters.get(form);
  if (!writer) failureWriters.set(form, (writer = compile(failureSchema(form))));
  return writer;
}

/**
 * What verification mode found in this process: how many bodies it compared and the first
 * difference of each writer that wrote one, which the writers test reports.
 */
export const writerVerification = { compared: 0, mismatches: new Map<string, string>() };

/**
 * Verification mode: writes with `writer` and with JSON.stringify, and throws when the bytes differ
 * (`what` names the writer in the message), so a schema that lost or reordered a field cannot pass.
 */
export function verifiedWriter(writer: BodyWriter, what: string): BodyWriter {
  return (body) => {
    const compiled = writer(body);
    const expected = JSON.stringify(body);
    writerVerification.compared++;
    if (compiled !== expected) {
      let at = 0;
      while (at < compiled.length && compiled[at] === expected[at]) at++;
      const around = (s: string): string => JSON.stringify(s.slice(Math.max(0, at - 60), at + 60));
      const message = `compiled writer of ${what} differs from JSON.stringify at byte ${at}: wrote ${around(compiled)}, JSON.stringify ${around(expected)}`;
      if (!writerVerification.mismatches.has(what)) writerVerification.mismatches.set(what, message);
      throw new Error(message);
    }
    return compiled;
  };
}
