/**
 * The body of a route read with axum's plain `Json<T>` extractor (reference notes §2.3): refused before
 * the handler runs, with a plain-text body and no envelope, when it is too large (413), has no JSON
 * content type (415), is no JSON (400) or does not deserialize into the request struct (422).
 */
import type { ParamSpec } from '../../../../contract/core/types.ts';
import { bodyText, headerOf, type ApiRequest, type ApiResponse } from '../../../admin-api/core/api-exchange.ts';
import { jsonDepth } from '../../../model/api/json-depth.ts';
import {
  JSON_CONTENT_TYPE_TEXT,
  JSON_DATA_PREFIX,
  JSON_SYNTAX_PREFIX,
  jsonSyntaxError,
  structDataError,
} from '../core/real-server-rejections.ts';
import { plainText } from './route-answers.ts';

/** A request struct: its Rust name (serde names it in some errors) and its fields in declaration order. */
export interface RequestStruct {
  readonly name: string;
  readonly fields: readonly ParamSpec[];
}

export type JsonBody = { ok: true; value: Record<string, unknown> | unknown[] } | { ok: false; answer: ApiResponse };

/** axum's `Json` accepts `application/json` and any `application/*+json`. */
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;
/** serde_json refuses JSON nested deeper than this. */
const SERDE_RECURSION_LIMIT = 128;
/** axum's default body limit (2 MiB), the listener's too. */
const BODY_LIMIT_TEXT = 'Failed to buffer the request body: length limit exceeded';

/**
 * The deserialized body, or the real extractor's refusal. The value is the parsed JSON, known to fit
 * the struct (an object, or an array read by position as serde reads one).
 */
export function plainJsonBody(req: ApiRequest, struct: RequestStruct): JsonBody {
  if (req.bodyTooLarge) return { ok: false, answer: plainText(413, BODY_LIMIT_TEXT) };
  const type = headerOf(req, 'content-type');
  if (!type || !JSON_TYPE.test(type.trim())) return { ok: false, answer: plainText(415, JSON_CONTENT_TYPE_TEXT) };
  const text = bodyText(req);
  if (jsonDepth(text) > SERDE_RECURSION_LIMIT)
    return {
      ok: false,
      answer: plainText(400, `${JSON_SYNTAX_PREFIX}recursion limit exceeded at line 1 column ${SERDE_RECURSION_LIMIT + 1}`),
    };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, answer: plainText(400, `${JSON_SYNTAX_PREFIX}${jsonSyntaxError(text)}`) };
  }
  const problem = structDataError(struct.name, struct.fields, text);
  if (problem) return { ok: false, answer: plainText(422, `${JSON_DATA_PREFIX}${problem}`) };
  return { ok: true, value: value as Record<string, unknown> | unknown[] };
}

/** The struct's fields as an object, whether the body gave them by name or by position. */
export function fieldsOf(struct: RequestStruct, value: Record<string, unknown> | unknown[]): Record<string, unknown> {
  if (!Array.isArray(value)) return value;
  return Object.fromEntries(struct.fields.map((f, i) => [f.name, value[i]]));
}
