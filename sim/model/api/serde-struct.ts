/**
 * A JSON value read into a declared Rust struct the way serde's derived `Deserialize` reads it
 * (`serde_json::from_value`), with serde's error texts: the real server deserializes mq9 payloads and
 * MCP tool arguments this way, and its answers quote these texts. What it models: unknown keys are
 * ignored, an `Option` field may be missing or null, a missing required field is reported after the
 * keys were read (the first in declaration order), a struct may also be given as an array of its
 * fields in order, and unit enums are snake_case strings. Positions (`at line L column C`, which only
 * text parsing adds) are left out.
 */
import { jsonDepth } from './json-depth.ts';

export type FieldType =
  | { readonly kind: 'string' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'u32' }
  | { readonly kind: 'u64' }
  | { readonly kind: 'seq'; readonly of: FieldType }
  | { readonly kind: 'enum'; readonly name: string; readonly variants: readonly string[] }
  | { readonly kind: 'struct'; readonly struct: StructDef }
  /** `serde_json::Value`: anything. */
  | { readonly kind: 'any' };

interface FieldDef {
  readonly name: string;
  readonly type: FieldType;
  /** `Option<T>`: may be missing or null. */
  readonly optional?: boolean;
}

export interface StructDef {
  readonly name: string;
  readonly fields: readonly FieldDef[];
}

/** A value that does not deserialize; the message is serde's. */
export class SerdeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SerdeError';
  }
}

export const STRING: FieldType = { kind: 'string' };
export const BOOL: FieldType = { kind: 'bool' };
export const U32: FieldType = { kind: 'u32' };
export const U64: FieldType = { kind: 'u64' };
export const seqOf = (of: FieldType): FieldType => ({ kind: 'seq', of });

/** serde's `Unexpected` for a JSON value, as its messages print it. */
export function unexpected(v: unknown): string {
  if (v === null || v === undefined) return v === null ? 'null' : 'unit value';
  if (Array.isArray(v)) return 'sequence';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'string') return `string ${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return `boolean \`${v}\``;
  if (typeof v === 'number') return Number.isInteger(v) ? `integer \`${v}\`` : `floating point \`${v}\``;
  return String(v);
}

// u64::MAX is not a double: 2 ** 64 is the double it rounds to, so every u64 the JSON can carry passes.
const BOUNDS = { u32: 4_294_967_295, u64: 2 ** 64 } as const;

function readValue(type: FieldType, v: unknown): unknown {
  switch (type.kind) {
    case 'any':
      return v;
    case 'string':
      if (typeof v !== 'string') throw new SerdeError(`invalid type: ${unexpected(v)}, expected a string`);
      return v;
    case 'bool':
      if (typeof v !== 'boolean') throw new SerdeError(`invalid type: ${unexpected(v)}, expected a boolean`);
      return v;
    case 'u32':
    case 'u64':
      if (typeof v !== 'number' || !Number.isInteger(v)) throw new SerdeError(`invalid type: ${unexpected(v)}, expected ${type.kind}`);
      if (v < 0 || v > BOUNDS[type.kind]) throw new SerdeError(`invalid value: integer \`${v}\`, expected ${type.kind}`);
      return v;
    case 'seq':
      if (!Array.isArray(v)) throw new SerdeError(`invalid type: ${unexpected(v)}, expected a sequence`);
      return v.map((el) => readValue(type.of, el));
    case 'enum':
      if (typeof v !== 'string') throw new SerdeError(`invalid type: ${unexpected(v)}, expected string or map`);
      if (!type.variants.includes(v))
        throw new SerdeError(`unknown variant \`${v}\`, expected one of ${type.variants.map((x) => `\`${x}\``).join(', ')}`);
      return v;
    case 'struct':
      return readStruct(type.struct, v);
  }
}

function readField(f: FieldDef, v: unknown): unknown {
  if (f.optional && (v === null || v === undefined)) return undefined;
  return readValue(f.type, v);
}

/** The struct's fields (Option fields absent when None), or a SerdeError with serde's text. */
export function readStruct(def: StructDef, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(value)) {
    // serde's derived visit_seq: the fields by position, every one present, nothing after them.
    for (const [i, f] of def.fields.entries()) {
      if (i >= value.length) throw new SerdeError(`invalid length ${i}, expected struct ${def.name} with ${def.fields.length} elements`);
      const v = readField(f, value[i]);
      if (v !== undefined) out[f.name] = v;
    }
    if (value.length > def.fields.length) throw new SerdeError(`invalid length ${value.length}, expected fewer elements in array`);
    return out;
  }
  if (value === null || typeof value !== 'object') throw new SerdeError(`invalid type: ${unexpected(value)}, expected struct ${def.name}`);
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const f = def.fields.find((x) => x.name === key);
    if (!f) continue;
    const v = readField(f, obj[key]);
    if (v !== undefined) out[f.name] = v;
  }
  const missing = def.fields.find((f) => !f.optional && !(f.name in out));
  if (missing) throw new SerdeError(`missing field \`${missing.name}\``);
  return out;
}

// ---- JSON text ---------------------------------------------------------------------------------

/** serde_json's ` at line L column C` for the character at `index`. */
export function position(text: string, index: number): string {
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  const column = index - before.lastIndexOf('\n');
  return ` at line ${line} column ${column}`;
}

/** serde_json's position at the end of the text (where an EOF error is reported). */
function endPosition(text: string): string {
  const lines = text.split('\n');
  return ` at line ${lines.length} column ${lines[lines.length - 1].length}`;
}

/**
 * serde_json's syntax error for a text that is not JSON, in its words for the common cases: an
 * empty or cut-off text is "EOF while parsing a value" at its end, anything else "expected value"
 * where parsing stopped.
 */
export function jsonSyntaxError(text: string): string {
  try {
    JSON.parse(text);
    return `expected value${position(text, 0)}`;
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    if (!at || Number(at[1]) >= text.trimEnd().length) return `EOF while parsing a value${endPosition(text)}`;
    return `expected value${position(text, Number(at[1]))}`;
  }
}

/** serde_json refuses JSON nested deeper than this. */
const SERDE_RECURSION_LIMIT = 128;

/**
 * `serde_json::from_slice` into a struct: the struct's fields, or a SerdeError with serde's text (a
 * syntax error with its position; a data error without one, see the module comment).
 */
export function readStructText(def: StructDef, text: string): Record<string, unknown> {
  if (jsonDepth(text) > SERDE_RECURSION_LIMIT) throw new SerdeError(`recursion limit exceeded${position(text, text.length - 1)}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SerdeError(jsonSyntaxError(text));
  }
  return readStruct(def, value);
}
