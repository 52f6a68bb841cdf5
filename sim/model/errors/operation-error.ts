/**
 * Why an operation of the model failed. The HTTP layer maps the kind to the envelope's `code` and the
 * HTTP status; the model never speaks HTTP.
 *
 * - `invalid`: the request breaks a rule (code 400, HTTP 400); `param` names the offending parameter.
 * - `failed`: a well-formed operation the model refuses (not found, already exists, quorum...): the
 *   spec's generic failure (code 1, or 100 in envelope form B).
 * - `unavailable`: the part of the cluster that must act is not there (component not running, no leader).
 */
export type OperationErrorKind = 'invalid' | 'failed' | 'unavailable';

export class OperationError extends Error {
  constructor(
    readonly kind: OperationErrorKind,
    message: string,
    readonly param?: string,
  ) {
    // A refusal is an answer of the model, not a program error: no stack trace to capture (the
    // capture was a visible share of chaos-run time, where refusals are frequent).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'OperationError';
  }
}

/** A rejected parameter; the message must name it. */
export function invalidParam(param: string, message: string): OperationError {
  return new OperationError('invalid', message.includes(param) ? message : `${param}: ${message}`, param);
}

export function failed(message: string): OperationError {
  return new OperationError('failed', message);
}

export function unavailable(message: string): OperationError {
  return new OperationError('unavailable', message);
}
