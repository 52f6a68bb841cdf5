/**
 * The spec's two envelope forms. The simulator serves one of them, chosen at start (`--envelope`):
 * A = {code, message, data} (default, as the spec's main text shows) and B = {code, data, error}
 * (as the real server answers). Login and 401 answers are always form A, as the spec gives them.
 */
export type EnvelopeForm = 'A' | 'B';

/** `code` of a generic operation failure in each form: 1, and 100 in the sample that uses form B. */
export const FAILURE_CODE: Record<EnvelopeForm, number> = { A: 1, B: 100 };

export function successEnvelope(form: EnvelopeForm, data: unknown): Record<string, unknown> {
  return form === 'A' ? { code: 0, message: 'success', data } : { code: 0, data, error: null };
}

export function failureEnvelope(form: EnvelopeForm, code: number, text: string): Record<string, unknown> {
  return form === 'A' ? { code, message: text, data: null } : { code, data: '', error: text };
}
