import type { ParsedViolations, PrismViolation } from './sl-violations.ts';
import type { ProxiedExchange } from './violation-recording-target.ts';

/** What Prism said about a run's answers, counted per answer and per endpoint. */
export interface ViolationSummary {
  /** Answers that came back through the proxy. */
  readonly answers: number;
  /** Answers whose request Prism found invalid (expected: the suites send invalid requests on purpose). */
  readonly withRequestViolations: number;
  /** Answers that break the document: the figure that must be 0. */
  readonly withResponseViolations: number;
  /** `METHOD /path` → answers with response violations there, most first. */
  readonly endpoints: readonly { endpoint: string; answers: number }[];
  /** A few offending answers, to read in a failure message. */
  readonly samples: readonly string[];
}

const SAMPLES = 12;

function describeViolation(v: PrismViolation): string {
  return `${v.location.join('.')}: ${v.message}`;
}

/**
 * Counts the response violations of a run. `violations[i]` belongs to `exchanges[i]`; by default
 * the ones Prism reported during the run, or those of a replay against another document.
 */
export function summarizeViolations(
  exchanges: readonly ProxiedExchange[],
  violations: readonly ParsedViolations[] = exchanges.map((x) => x.violations),
): ViolationSummary {
  const perEndpoint = new Map<string, number>();
  const samples: string[] = [];
  let withRequest = 0;
  let withResponse = 0;
  exchanges.forEach((x, i) => {
    const v = violations[i];
    if (v.request.length > 0) withRequest++;
    if (v.response.length === 0) return;
    withResponse++;
    const endpoint = `${x.request.method} ${x.request.path}`;
    perEndpoint.set(endpoint, (perEndpoint.get(endpoint) ?? 0) + 1);
    if (samples.length < SAMPLES) {
      const shown = v.response.slice(0, 3).map(describeViolation).join('; ');
      samples.push(
        `${x.request.method} ${x.request.url} → HTTP ${x.answer.status} ${x.answer.body.slice(0, 160)}\n      ${shown}${v.truncated ? ' (header cut by Prism)' : ''}`,
      );
    }
  });
  const endpoints = [...perEndpoint]
    .map(([endpoint, answers]) => ({ endpoint, answers }))
    .sort((a, b) => b.answers - a.answers || a.endpoint.localeCompare(b.endpoint));
  return { answers: exchanges.length, withRequestViolations: withRequest, withResponseViolations: withResponse, endpoints, samples };
}

/** One line of figures, e.g. for the test's output. */
export function violationLine(s: ViolationSummary): string {
  return `${s.withResponseViolations} of ${s.answers} answers break the document, on ${s.endpoints.length} endpoints (${s.withRequestViolations} requests were invalid, most on purpose)`;
}
