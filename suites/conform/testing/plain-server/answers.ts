/**
 * What a handler of the plain server answers, and how an answer becomes the spec's envelope
 * (Response envelope: form A `{code, message, data}` or form B `{code, data, error}`).
 */

/** `failure`: the generic failure of an operation; the spec allows code 1 or 100 and the server picks one. */
type Code = number | 'failure';

export interface Answer {
  status: number;
  code: Code;
  data: unknown;
  /** The failure text (`message` in form A, `error` in form B). */
  text?: string;
  /** Form A whatever the server's form (the spec shows the login answers so). */
  formA?: boolean;
}

export interface EnvelopeChoice {
  envelope: 'A' | 'B';
  failureCode: 1 | 100;
}

export const ok = (data: unknown = 'success'): Answer => ({ status: 200, code: 0, data });

/** A request parameter error (Errors: code 400, "message naming the invalid parameter"). */
export const invalid = (text: string): Answer => ({ status: 400, code: 400, data: null, text });

/** An operation that could not be done (duplicate, not found): HTTP 200 with the generic failure code. */
export const failed = (text: string): Answer => ({ status: 200, code: 'failure', data: null, text });

/** Any other refusal with its own HTTP status and code (401, 404, 405, 413, 415). */
export const refusal = (status: number, code: number, text: string): Answer => ({ status, code, data: null, text });

/** Thrown by validation and handlers to answer at once. */
export class Refusal extends Error {
  constructor(readonly answer: Answer) {
    super(answer.text ?? `HTTP ${answer.status}`);
  }
}

/** Refuses the request as a parameter error. */
export function refuse(text: string): never {
  throw new Refusal(invalid(text));
}

/** The JSON body of an answer in the server's envelope form. */
export function envelopeBody(a: Answer, choice: EnvelopeChoice): string {
  const code = a.code === 'failure' ? choice.failureCode : a.code;
  const success = code === 0;
  if (a.formA || choice.envelope === 'A')
    return JSON.stringify({ code, message: success ? 'success' : (a.text ?? 'failed'), data: success ? a.data : null });
  // Form B: a failure's data is the empty string, as the reference server sends it (the spec allows null or "").
  return JSON.stringify({ code, data: success ? a.data : '', error: success ? null : (a.text ?? 'failed') });
}
