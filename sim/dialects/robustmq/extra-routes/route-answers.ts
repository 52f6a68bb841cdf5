/**
 * Answers of the routes the real server has beyond the spec, in the real server's forms (reference
 * notes §2): its handlers return `String` (form B envelopes sent as text/plain), its `Json` answers
 * are application/json, axum's rejections plain text. These routes exist only on the real server, so
 * they answer its way whatever envelope form the simulator is set to.
 */
import type { ApiResponse } from '../../../admin-api/core/api-exchange.ts';
import { TEXT_PLAIN } from '../core/real-server-answers.ts';

/** `success_response(data)`: `{"code":0,"data":…,"error":null}`, HTTP 200, text/plain. */
export function formBSuccess(data: unknown): ApiResponse {
  return { status: 200, headers: { 'content-type': TEXT_PLAIN }, body: JSON.stringify({ code: 0, data, error: null }) };
}

/** `error_response(msg)`: `{"code":100,"data":"","error":…}`, HTTP 200, text/plain. */
export function formBFailure(text: string): ApiResponse {
  return { status: 200, headers: { 'content-type': TEXT_PLAIN }, body: JSON.stringify({ code: 100, data: '', error: text }) };
}

/** An axum rejection or other plain-text answer. */
export function plainText(status: number, text: string): ApiResponse {
  return { status, headers: { 'content-type': TEXT_PLAIN }, body: text };
}

/** An axum `Json` answer. */
export function jsonAnswer(status: number, body: unknown): ApiResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** An answer without a body (axum sends no content type then), e.g. a bare 404 or 405. */
export function emptyAnswer(status: number, headers: Record<string, string> = {}): ApiResponse {
  return { status, headers, body: '' };
}

/** axum's answer to a method the route does not have: 405, empty body, `Allow` naming the route's methods. */
export function methodNotAllowed(allow: readonly ('GET' | 'POST')[]): ApiResponse {
  return emptyAnswer(405, { allow: allow.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])).join(',') });
}
