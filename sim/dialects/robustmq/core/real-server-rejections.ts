/**
 * The texts of the real server's request rejections (reference notes §2.3, §4), computed from the
 * request as sent and the contract of the endpoint:
 * - `Query<T>` (every GET): `Failed to deserialize query string: <serde_urlencoded error>`;
 * - `Json<T>` (login, config set, offset/*, message/read, storage engine): serde_json's error, after
 *   axum's `Failed to parse the request body as JSON` / `Failed to deserialize the JSON body into the
 *   target type`;
 * - `ValidatedJson<T>` (every other POST): `JSON parsing failed: <the Json text>`, or
 *   `Parameter validation failed: <validator messages joined by "; ">` with the messages of §4.
 * The exact serde and axum wording is unverified (notes §12); the forms here follow the libraries'
 * Display implementations (serde_path_to_error puts `<field>: ` before an error inside a field).
 */
import { COMMON_LIST_PARAMS } from '../../../../contract/core/common.ts';
import { CONNECTOR_CATALOGUE } from '../../../../contract/core/connector-catalogue.ts';
import type { EndpointContract, ParamSpec, ParamType } from '../../../../contract/core/types.ts';
import { jsonSyntaxError, position, unexpected } from '../../../model/api/serde-struct.ts';
import { charLength } from '../../../model/api/validate-params.ts';

export { jsonSyntaxError };

type Obj = Record<string, unknown>;

/** Which axum extractor reads the endpoint's request on the real server (notes §4 marks VJ, J, Q). */
export type Extractor = 'query' | 'json' | 'validated-json';

/** POST endpoints read with plain `Json<T>`; every other POST uses `ValidatedJson<T>`. */
const PLAIN_JSON = new Set([
  'auth.login',
  'cluster.config.set',
  'cluster.offset.timestamp',
  'cluster.offset.group',
  'cluster.offset.commit',
  'mqtt.message.read',
  'storage.shard.list',
  'storage.shard.create',
  'storage.shard.delete',
  'storage.segment.list',
  'storage.segment.detail',
  'storage.segment.replica-state',
]);

export function extractorOf(e: EndpointContract): Extractor {
  if (e.method === 'GET') return 'query';
  return PLAIN_JSON.has(e.id) ? 'json' : 'validated-json';
}

export const QUERY_REJECTION_PREFIX = 'Failed to deserialize query string: ';
export const JSON_SYNTAX_PREFIX = 'Failed to parse the request body as JSON: ';
export const JSON_DATA_PREFIX = 'Failed to deserialize the JSON body into the target type: ';
export const JSON_CONTENT_TYPE_TEXT = 'Expected request with `Content-Type: application/json`';
/** axum's rejection of a body over its default limit (2 MB): `FailedToBufferBody::LengthLimitError`, HTTP 413. */
export const BODY_LIMIT_TEXT = 'Failed to buffer the request body: length limit exceeded';

/**
 * Fields the real request struct declares without `Option` where the contract makes them optional:
 * topic create's `source` (notes §4.3, "`source`: 1-32") and schema create's `desc` (notes §4.6,
 * "required String"). serde reports them missing before any validator runs.
 */
const REAL_REQUIRED: Readonly<Record<string, readonly string[]>> = {
  'cluster.topic.create': ['source'],
  'cluster.schema.create': ['desc'],
};

function declared(e: EndpointContract): readonly ParamSpec[] {
  const specs = e.list ? [...e.params, ...COMMON_LIST_PARAMS] : e.params;
  const required = REAL_REQUIRED[e.id];
  return required ? specs.map((p) => (required.includes(p.name) ? { ...p, required: true } : p)) : specs;
}

const INT_BOUNDS: Partial<Record<ParamType, [bigint, bigint]>> = {
  u8: [0n, 255n],
  u16: [0n, 65_535n],
  u32: [0n, 4_294_967_295n],
  u64: [0n, 18_446_744_073_709_551_615n],
  i32: [-2_147_483_648n, 2_147_483_647n],
  i64: [-9_223_372_036_854_775_808n, 9_223_372_036_854_775_807n],
};

/** Rust's `str::parse` error for an integer type, as serde_urlencoded reports it. */
function parseIntError(type: ParamType, text: string): string | undefined {
  const [min, max] = INT_BOUNDS[type]!;
  if (text === '') return 'cannot parse integer from empty string';
  const signed = min < 0n;
  if (!(signed ? /^[+-]?\d+$/ : /^\+?\d+$/).test(text)) return 'invalid digit found in string';
  const n = BigInt(text);
  if (n > max) return 'number too large to fit in target type';
  if (n < min) return 'number too small to fit in target type';
  return undefined;
}

/** serde_urlencoded's error for one query value of a field of this type, or undefined when it parses. */
function queryValueError(spec: ParamSpec, value: string): string | undefined {
  if (INT_BOUNDS[spec.type]) return parseIntError(spec.type, value);
  if (spec.type === 'bool') return value === 'true' || value === 'false' ? undefined : 'provided string was not `true` or `false`';
  if (spec.type === 'f32' || spec.type === 'number')
    return value.trim() !== '' && Number.isFinite(Number(value)) ? undefined : 'invalid float literal';
  return undefined;
}

export interface QueryRejectionOptions {
  /**
   * serde_urlencoded cannot read a sequence from a query string (notes §2.3, §11.8): any
   * `filter_values` is refused. Off: sequences are read the simulator's way.
   */
  readonly sequencesRefused?: boolean;
}

/**
 * The error `Query<T>` answers for this query (keys in the order sent, repeated keys as arrays),
 * without the `Failed to deserialize query string: ` prefix; undefined when it deserializes.
 * Unknown keys are ignored; the first bad pair in query order wins, then the first missing required
 * field in declaration order (serde derive reports missing fields once the input is consumed).
 */
export function queryRejection(
  e: EndpointContract,
  query: Record<string, string | string[]>,
  options: QueryRejectionOptions = {},
): string | undefined {
  return queryFieldsRejection(declared(e), query, options);
}

/** `queryRejection` for a request struct given by its fields (a route the contract does not describe). */
export function queryFieldsRejection(
  specs: readonly ParamSpec[],
  query: Record<string, string | string[]>,
  options: QueryRejectionOptions = {},
): string | undefined {
  for (const key of Object.keys(query)) {
    const spec = specs.find((p) => p.name === key);
    if (!spec) continue;
    const value = query[key];
    const values = Array.isArray(value) ? value : [value];
    if (spec.type === 'string-array' || spec.type === 'array') {
      if (!options.sequencesRefused) continue;
      return `${key}: invalid type: string ${JSON.stringify(values[0])}, expected a sequence`;
    }
    const problem = queryValueError(spec, values[0]);
    if (problem) return `${key}: ${problem}`;
    if (values.length > 1) return `duplicate field \`${key}\``;
  }
  const missing = specs.find((p) => p.required && !(p.name in query));
  return missing ? `missing field \`${missing.name}\`` : undefined;
}

// ---- JSON bodies -------------------------------------------------------------------------------

/** Where a top-level key's value starts and ends in a JSON object text, and where the object closes. */
interface ObjectLayout {
  /** Index of the first character of each top-level key's (last) value. */
  valueStart: Map<string, number>;
  /** Index of the last character of each top-level key's (last) value. */
  valueEnd: Map<string, number>;
  /** Index of the closing brace. */
  close: number;
}

/** Walks a JSON text known to be valid (it parsed), one token or value at a time. */
class JsonScanner {
  constructor(
    readonly text: string,
    public i = 0,
  ) {}

  ws(): void {
    while (this.i < this.text.length && /\s/.test(this.text[this.i])) this.i++;
  }

  skipString(): void {
    this.i++; // opening quote
    while (this.text[this.i] !== '"') this.i += this.text[this.i] === '\\' ? 2 : 1;
    this.i++; // closing quote
  }

  skipValue(): void {
    const t = this.text;
    if (t[this.i] === '"') return this.skipString();
    if (t[this.i] === '{' || t[this.i] === '[') {
      let depth = 0;
      do {
        if (t[this.i] === '"') {
          this.skipString();
          continue;
        }
        if (t[this.i] === '{' || t[this.i] === '[') depth++;
        else if (t[this.i] === '}' || t[this.i] === ']') depth--;
        this.i++;
      } while (depth > 0 && this.i < t.length);
      return;
    }
    while (this.i < t.length && !/[\s,}\]]/.test(t[this.i])) this.i++;
  }
}

/** Scans a JSON text that is known to be an object (it parsed) for its top-level layout. */
function layoutOf(text: string): ObjectLayout | undefined {
  const sc = new JsonScanner(text);
  sc.ws();
  if (text[sc.i] !== '{') return undefined;
  sc.i++;
  const valueStart = new Map<string, number>();
  const valueEnd = new Map<string, number>();
  for (;;) {
    sc.ws();
    if (text[sc.i] === '}') return { valueStart, valueEnd, close: sc.i };
    if (text[sc.i] !== '"') return undefined;
    const keyStart = sc.i;
    sc.skipString();
    const key = JSON.parse(text.slice(keyStart, sc.i)) as string;
    sc.ws();
    sc.i++; // ':'
    sc.ws();
    valueStart.set(key, sc.i);
    sc.skipValue();
    valueEnd.set(key, sc.i - 1);
    sc.ws();
    if (text[sc.i] === ',') sc.i++;
    if (sc.i >= text.length) return undefined;
  }
}

/** Index of the last character of each element of the JSON array that starts at `open` (a `[`). */
function elementEnds(text: string, open: number): number[] {
  const sc = new JsonScanner(text, open + 1);
  const ends: number[] = [];
  for (;;) {
    sc.ws();
    if (sc.i >= text.length || text[sc.i] === ']') return ends;
    sc.skipValue();
    ends.push(sc.i - 1);
    sc.ws();
    if (text[sc.i] === ',') sc.i++;
  }
}

const EXPECTED: Partial<Record<ParamType, string>> = {
  string: 'a string',
  bool: 'a boolean',
  u8: 'u8',
  u16: 'u16',
  u32: 'u32',
  u64: 'u64',
  i32: 'i32',
  i64: 'i64',
  f32: 'f32',
  number: 'f64',
  'string-array': 'a sequence',
  array: 'a sequence',
};

/** serde's error for a field value of the wrong type, or undefined when it fits (objects are not judged). */
function typeError(spec: ParamSpec, v: unknown): string | undefined {
  const expected = EXPECTED[spec.type];
  if (!expected) return undefined;
  if (v === null) return spec.required ? `invalid type: null, expected ${expected}` : undefined;
  const bounds = INT_BOUNDS[spec.type];
  if (bounds) {
    if (typeof v !== 'number' || !Number.isInteger(v)) return `invalid type: ${unexpected(v)}, expected ${expected}`;
    const n = BigInt(v);
    return n < bounds[0] || n > bounds[1] ? `invalid value: integer \`${v}\`, expected ${expected}` : undefined;
  }
  const ok =
    spec.type === 'string'
      ? typeof v === 'string'
      : spec.type === 'bool'
        ? typeof v === 'boolean'
        : spec.type === 'f32' || spec.type === 'number'
          ? typeof v === 'number'
          : Array.isArray(v);
  return ok ? undefined : `invalid type: ${unexpected(v)}, expected ${expected}`;
}

/**
 * serde's error deserializing this JSON object text into the endpoint's request struct (without
 * axum's prefix), or undefined when it deserializes: the first field of the wrong type in the
 * order sent, else the first missing required field in declaration order (reported at the closing
 * brace). Texts that are not a JSON object are not judged here.
 */
export function jsonDataError(e: EndpointContract, text: string): string | undefined {
  return jsonFieldsError(declared(e), text);
}

/** `jsonDataError` for a request struct given by its fields (a route the contract does not describe). */
function jsonFieldsError(specs: readonly ParamSpec[], text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const layout = layoutOf(text);
  if (!layout || body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const obj = body as Obj;
  for (const key of Object.keys(obj)) {
    const spec = specs.find((p) => p.name === key);
    const problem = spec ? typeError(spec, obj[key]) : undefined;
    if (problem) return `${key}: ${problem}${position(text, layout.valueEnd.get(key)!)}`;
    // Elements of a typed sequence (Vec<u64>, Vec<String>): serde_path_to_error names the element.
    const value = obj[key];
    if (spec?.items && Array.isArray(value)) {
      const ends = elementEnds(text, layout.valueStart.get(key)!);
      for (const [i, el] of value.entries()) {
        const inner = typeError({ ...spec.items, required: true }, el);
        if (inner) return `${key}[${i}]: ${inner}${position(text, ends[i])}`;
      }
    }
  }
  const missing = specs.find((p) => p.required && !(p.name in obj));
  return missing ? `missing field \`${missing.name}\`${position(text, layout.close)}` : undefined;
}

/**
 * serde's error deserializing this JSON text into a struct named `name` with these fields (in
 * declaration order; `object` fields take any value, as `serde_json::Value`), without axum's prefix;
 * undefined when it deserializes. An object is judged as `jsonFieldsError` does; an array fills the
 * fields by position, as serde's derived `visit_seq` does (too few elements: `invalid length`, too
 * many: `trailing characters`); any other value is `invalid type: …, expected struct <name>`.
 */
export function structDataError(name: string, fields: readonly ParamSpec[], text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const start = text.length - text.trimStart().length;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) return jsonFieldsError(fields, text);
  if (!Array.isArray(body)) return `invalid type: ${unexpected(body)}, expected struct ${name}${position(text, text.trimEnd().length - 1)}`;
  const ends = elementEnds(text, start);
  for (const [i, spec] of fields.entries()) {
    if (i >= body.length)
      return `invalid length ${i}, expected struct ${name} with ${fields.length} elements${position(text, text.trimEnd().length - 1)}`;
    const problem = typeError({ ...spec, required: true }, body[i]);
    if (problem && !(body[i] === null && !spec.required)) return `[${i}]: ${problem}${position(text, ends[i])}`;
  }
  if (body.length > fields.length) {
    const sc = new JsonScanner(text, ends[fields.length - 1] + 1);
    sc.ws();
    sc.i++; // ','
    sc.ws();
    return `trailing characters${position(text, sc.i)}`;
  }
  return undefined;
}

// ---- validator messages (ValidatedJson) ---------------------------------------------------------

/** Messages of a field's `#[validate]` rules (notes §4); a rule without one reads `Field '<f>' validation failed: <code>`. */
interface FieldMessages {
  readonly length?: string;
  readonly range?: string;
  /** The custom validator (an enum check); without it the field's values are not checked by the extractor. */
  readonly custom?: string;
}

const TENANT_NAME: FieldMessages = { length: 'Tenant name length must be between 1-128' };
const TENANT_DESC: FieldMessages = { length: 'Description length cannot exceed 500' };

/** Per endpoint, per field: the messages of notes §4. */
const VALIDATOR_MESSAGES: Readonly<Record<string, Readonly<Record<string, FieldMessages>>>> = {
  'cluster.node.leave': { node_id: { range: 'node_id must be >= 1' } },
  'cluster.tenant.create': { tenant_name: TENANT_NAME, desc: TENANT_DESC },
  'cluster.tenant.update': { tenant_name: TENANT_NAME, desc: TENANT_DESC },
  'cluster.topic.create': {
    tenant: { length: 'Tenant length must be between 1-128' },
    topic_name: { length: 'Topic name length must be between 1-256' },
    storage_type: { length: 'storage_type must not be empty' },
    source: { length: 'source must not be empty' },
  },
  'cluster.topic-rewrite.create': {
    action: { custom: 'Action must be All, Publish or Subscribe' },
    source_topic: { length: 'Source topic length must be between 1-256' },
    dest_topic: { length: 'Dest topic length must be between 1-256' },
    regex: { length: 'Regex length must be between 1-500' },
  },
  'cluster.user.create': {
    tenant: { length: 'Tenant length must be between 1-64' },
    username: { length: 'Username length must be between 1-64' },
    password: { length: 'Password length must be between 1-128' },
  },
  'cluster.acl.create': {
    name: { length: 'Name length must be between 1-128' },
    desc: { length: 'Desc length cannot exceed 256' },
    resource_type: { custom: 'Resource type must be ClientId, User or Ip' },
    action: { custom: 'Action must be Publish, Subscribe or All' },
    permission: { custom: 'Permission must be Allow or Deny' },
  },
  'cluster.blacklist.create': {
    blacklist_type: { custom: 'Blacklist type must be ClientId, User, Ip, ClientIdMatch, UserMatch or IPCIDR' },
    end_time: { range: 'End time must be greater than 0' },
    desc: { length: 'Description length cannot exceed 500 characters' },
  },
  'cluster.connector.create': {
    connector_name: { length: 'Connector name length must be between 1-128' },
    connector_type: {
      custom:
        'Connector type must be kafka, pulsar, rabbitmq, greptime, postgres, mysql, mongodb, elasticsearch, redis, webhook, opentsdb, mqtt, clickhouse, influxdb, cassandra, s3 or file',
    },
    config: { length: 'Config length must be between 1-4096' },
    tenant: { length: 'Tenant length must be between 1-256' },
    topic_name: { length: 'Topic name length must be between 1-256' },
  },
  'cluster.schema.create': {
    schema_name: { length: 'Schema name length must be between 1-128' },
    schema_type: { custom: 'Schema type must be json, avro or protobuf' },
    schema: { length: 'Schema length must be between 1-8192' },
    desc: { length: 'Description length cannot exceed 500' },
  },
  'mqtt.message.send': {
    topic: { length: 'Topic length must be between 1-256' },
    payload: { length: 'Payload length cannot exceed 1MB (1048576 bytes)' },
  },
  'mqtt.auto-subscribe.create': {
    qos: { range: 'QoS must be 0, 1 or 2' },
    retained_handling: { range: 'Retained handling must be 0, 1 or 2' },
  },
};

/** Values the custom validators accept where the contract's enum differs (connector types, checked ignoring case). */
const CUSTOM_ACCEPTS: Readonly<Record<string, (v: unknown) => boolean>> = {
  connector_type: (v) => typeof v === 'string' && CONNECTOR_CATALOGUE.some((t) => t.id === v.toLowerCase()),
};

/** The validator messages of one field of a deserialized body, in rule order (length, range, custom). */
function fieldMessages(endpointId: string, spec: ParamSpec, v: unknown): string[] {
  const messages = VALIDATOR_MESSAGES[endpointId]?.[spec.name] ?? {};
  const out: string[] = [];
  const field = (code: string) => `Field '${spec.name}' validation failed: ${code}`;
  if (typeof v === 'string') {
    const len = charLength(v);
    if ((spec.minLength !== undefined && len < spec.minLength) || (spec.maxLength !== undefined && len > spec.maxLength))
      out.push(messages.length ?? field('length'));
  }
  if (typeof v === 'number') {
    const outOfEnum = spec.enum !== undefined && !spec.enum.includes(v);
    if (
      (spec.minimum !== undefined && v < spec.minimum) ||
      (spec.maximum !== undefined && v > spec.maximum) ||
      (outOfEnum && messages.range)
    )
      out.push(messages.range ?? field('range'));
  }
  if (messages.custom) {
    const accepts = CUSTOM_ACCEPTS[spec.name] ?? ((x: unknown) => spec.enum === undefined || spec.enum.includes(x as string | number));
    if (!accepts(v)) out.push(messages.custom);
  }
  return out;
}

/**
 * What `ValidatedJson<T>` answers to this body text: `JSON parsing failed: …` when it does not
 * deserialize, `Parameter validation failed: …` when a rule fails (messages of every failing field,
 * in declaration order: the real order is a HashMap's, unspecified), undefined when it passes.
 */
export function validatedJsonRejection(e: EndpointContract, text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `JSON parsing failed: ${JSON_SYNTAX_PREFIX}${jsonSyntaxError(text)}`;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const data = jsonDataError(e, text);
  if (data) return `JSON parsing failed: ${JSON_DATA_PREFIX}${data}`;
  const obj = body as Obj;
  const messages = e.params.flatMap((p) => (obj[p.name] === undefined || obj[p.name] === null ? [] : fieldMessages(e.id, p, obj[p.name])));
  return messages.length > 0 ? `Parameter validation failed: ${messages.join('; ')}` : undefined;
}
