/**
 * The validation problems Stoplight Prism reports in the `sl-violations` header of an answer it
 * proxied: a JSON array of `{location, severity, code, message}`, where `location[0]` says whether
 * the problem is in the request (`request`) or in the upstream's answer (`response`). Prism cuts a
 * header longer than about 8 KiB and prefixes it with `Too many violations! `; such a header is not
 * JSON any more, so the problems are counted from what can still be read, and marked `truncated`.
 */

/** One problem Prism found. */
export interface PrismViolation {
  /** `request` or `response`, then the place inside it, e.g. `['response', 'body', 'code']`. */
  readonly location: readonly string[];
  /** `Error`, `Warning`, `Information` or `Hint`. */
  readonly severity: string;
  readonly code: string | number;
  readonly message: string;
}

export interface ParsedViolations {
  readonly request: readonly PrismViolation[];
  readonly response: readonly PrismViolation[];
  /** The header was cut by Prism: the lists hold only what could be read, never fewer than one per side seen. */
  readonly truncated: boolean;
}

const TRUNCATED_PREFIX = 'Too many violations! ';

const NONE: ParsedViolations = { request: [], response: [], truncated: false };

function isViolation(v: unknown): v is PrismViolation {
  return (
    typeof v === 'object' &&
    v !== null &&
    Array.isArray((v as PrismViolation).location) &&
    typeof (v as PrismViolation).message === 'string'
  );
}

function split(list: readonly PrismViolation[], truncated: boolean): ParsedViolations {
  return { request: list.filter((v) => v.location[0] === 'request'), response: list.filter((v) => v.location[0] !== 'request'), truncated };
}

/**
 * Reads a cut header: every complete violation object still in it. Objects are flat apart from the
 * `location` array, so a non-greedy match up to the closing brace finds each one.
 */
function readTruncated(text: string): PrismViolation[] {
  const found: PrismViolation[] = [];
  for (const m of text.matchAll(/\{"location":\[[^\]]*\][^{}]*\}/g)) {
    try {
      const v: unknown = JSON.parse(m[0]);
      if (isViolation(v)) found.push(v);
    } catch {
      // A fragment that only looks like an object: skip it.
    }
  }
  // The last object may be cut in the middle: still count its side, so a cut header never reads as clean.
  const sides = new Set([...text.matchAll(/"location":\["(request|response)"/g)].map((m) => m[1]));
  for (const side of sides) {
    if (!found.some((v) => v.location[0] === side))
      found.push({ location: [side], severity: 'Error', code: 'truncated', message: 'cut from the sl-violations header by Prism' });
  }
  return found;
}

/**
 * The violations of one `sl-violations` header value (absent header: none). Never throws: a header
 * that cannot be read counts as a response violation, so a problem can never hide behind it.
 */
export function parseSlViolations(header: string | undefined): ParsedViolations {
  if (header === undefined || header === '') return NONE;
  if (header.startsWith(TRUNCATED_PREFIX)) return split(readTruncated(header.slice(TRUNCATED_PREFIX.length)), true);
  let parsed: unknown;
  try {
    parsed = JSON.parse(header);
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && parsed.every(isViolation)) return split(parsed, false);
  const unreadable: PrismViolation = {
    location: ['response'],
    severity: 'Error',
    code: 'unreadable',
    message: `sl-violations header is not a list of violations: ${header.slice(0, 200)}`,
  };
  return { request: [], response: [unreadable], truncated: false };
}
