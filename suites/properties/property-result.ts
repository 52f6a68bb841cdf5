import type { CheckRecord, CheckStatus, FailureCause, Level, RequestRecord, ResponseRecord } from '../conform/report-model.ts';

/**
 * One outcome of a property on one endpoint, as the report shows it. A failure carries everything
 * needed to see and replay it: the seed, the --property-path, the shrunk counterexample, the request
 * and response that broke the rule, and the replay command.
 */
export interface PropertyResult {
  endpointId: string;
  method: string;
  path: string;
  /** Check id: `property.model.<family>` (`.must-only` for the MUST re-run), `property.requests`. */
  id: string;
  /** The spec assertion of the result: the rule broken on a failure, the property's main rule otherwise. */
  assertion: string;
  level: Level;
  status: CheckStatus;
  message: string;
  /** The property, e.g. `model.users`. */
  property: string;
  seed: number;
  /** Runs made (up to and including the failing one). */
  numRuns: number;
  durationMs: number;
  /** Failures: the rule broken (e.g. `list.matches-model`, `envelope`). */
  rule?: string;
  /** Failures: what `--property-path` takes to replay exactly this case. */
  counterexamplePath?: string;
  /** Failures: the shrunk case, one command or request per line. */
  counterexample?: string[];
  numShrinks?: number;
  replay?: string;
  request?: RequestRecord;
  response?: ResponseRecord;
  curl?: string;
}

/** Why a failure's answer explains it beyond its rule (see FailureCause): a 5xx or no answer. */
function causeOf(r: PropertyResult): FailureCause | undefined {
  if (r.status !== 'fail' || !r.response) return undefined;
  if (r.response.error !== undefined || r.response.status === 0) return 'transport';
  return r.response.status >= 500 ? 'server-error' : undefined;
}

/** The report's check record for a result (seed, path and replay are in the message). */
export function toCheckRecord(r: PropertyResult): CheckRecord {
  const cause = causeOf(r);
  return {
    id: r.id,
    assertion: r.assertion,
    level: r.level,
    status: r.status,
    message: r.message,
    ...(cause ? { cause, causeEndpoint: r.endpointId } : {}),
    ...(r.request ? { request: r.request } : {}),
    ...(r.response ? { response: r.response } : {}),
    ...(r.curl ? { curl: r.curl } : {}),
  };
}
