/** Type guards for parsed JSON (a file, a request body) before it is trusted as a known shape. */

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A whole number. */
export function isInteger(value: unknown): value is number {
  return Number.isInteger(value);
}

/** One of `allowed`. */
export function isOneOf<T extends string>(allowed: readonly T[], value: unknown): value is T {
  return (allowed as readonly unknown[]).includes(value);
}
