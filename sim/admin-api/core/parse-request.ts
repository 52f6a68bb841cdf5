import { jsonDepth } from '../../model/api/json-depth.ts';

/** Maximum request body the service reads; larger bodies get HTTP 413 (documented in the contract). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Deepest JSON nesting accepted; deeper bodies are refused before they can exhaust the stack. */
const MAX_JSON_DEPTH = 64;

export interface ParsedUrl {
  path: string;
  query: Record<string, string | string[]>;
}

/**
 * Splits path and query. Repeated keys and the bracket forms `k[]=v` and `k[0]=v` become arrays under
 * `k`; other keys (`pagination[offset]`, `filers[0][field]`) stay as they are and are ignored later
 * as unknown parameters. Keys that would touch an object's prototype are dropped.
 */
export function parseUrl(rawUrl: string): ParsedUrl {
  const q = rawUrl.indexOf('?');
  let path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  const search = q === -1 ? '' : rawUrl.slice(q + 1);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const query: Record<string, string | string[]> = Object.create(null);
  for (const [rawKey, value] of new URLSearchParams(search)) {
    const bracket = /^([^[\]]+)\[(\d*)\]$/.exec(rawKey);
    const key = bracket ? bracket[1] : rawKey;
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    const prev = query[key];
    if (prev === undefined) query[key] = bracket ? [value] : value;
    else query[key] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return { path, query };
}

/** Whether a Content-Type names JSON: `application/json` or `application/*+json` (parameters allowed). */
export function isJsonMediaType(contentType: string): boolean {
  return /^application\/([\w.+-]*\+)?json\b/i.test(contentType.trim());
}

/** Whether a body sent with this Content-Type is read as JSON: none given (or empty), or a JSON media type. */
export function isJsonBodyType(contentType: string | undefined): boolean {
  return !contentType || isJsonMediaType(contentType);
}

export type BodyParse = { ok: true; value: unknown } | { ok: false; message: string };

/** Any UTF-16 surrogate: a string holding none encodes to UTF-8 and decodes back to itself. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * A request body's size in bytes (its UTF-8 encoding, for a string) and its text as the UTF-8
 * decoding of those bytes gives it. A string without surrogates is its own decoding, so it is neither
 * encoded nor decoded (in-process callers hand over strings); one with surrogates goes through the
 * bytes, which turn a lone surrogate into U+FFFD as a listener's decoding would.
 */
export function bodyBytes(body: Buffer | string): { size: number; text: () => string } {
  if (typeof body === 'string' && !SURROGATE.test(body)) return { size: Buffer.byteLength(body, 'utf8'), text: () => body };
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return { size: bytes.length, text: () => bytes.toString('utf8') };
}

/** Parses a request body's text as JSON with a depth limit; an empty body reads as "no body". */
export function parseJsonBody(text: string | undefined): BodyParse {
  if (text === undefined || text.trim() === '') return { ok: true, value: undefined };
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    return { ok: false, message: `request body is nested deeper than ${MAX_JSON_DEPTH} levels` };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, message: `request body is not valid JSON: ${(e as Error).message}` };
  }
}
