import type fc from 'fast-check';
import type { EndpointContract } from '../../../contract/core/types.ts';
import type { Level } from '../../conform/report-model.ts';
import type { PropertyClient } from './property-client.ts';
import type { PropertyAbort } from './violation.ts';

/**
 * One property the suites run: what it covers, how to build it for a rule threshold, and how its
 * counterexamples read. Model-based properties generate command sequences (`fc.commands`, whose
 * exact replay needs fast-check's `replayPath` besides the seed and path).
 */
export interface PropertyDef {
  /** Stable id, the first part of a --property-path: `model.users`, `requests.cluster.user.list`. */
  id: string;
  /** Endpoints the property exercises; each gets a check record. */
  endpoints: readonly EndpointContract[];
  /** Check id in the report. */
  checkId: string;
  /** The assertion a pass is reported against (the main rule the property checks; a failure cites the rule it broke). */
  assertion: string;
  /** Whether the generated value is an `fc.commands` sequence. */
  commands: boolean;
  /** Default number of runs. */
  numRuns: number;
  /** The runs are the property's own, not --property-runs' (list histories: their size is set by --depth). */
  ownRuns?: boolean;
  /** Before the first run (fixtures such as the property's tenant); may throw a PropertyAbort. */
  setup?(): Promise<void>;
  /** After the last run (best effort). */
  teardown?(): Promise<void>;
  /** The property, checking rules at or above `minLevel`; `replayPath` for command sequences. */
  build(minLevel: Level, replayPath?: string): fc.IAsyncProperty<[unknown]>;
  /** A counterexample in lines (one command or request each). */
  describe(value: unknown): string[];
  /** The property's own client (its answer counts show whether it reached the behaviour). */
  client: PropertyClient;
  /** Set once the target made the property unobservable; every later run stops at once. */
  aborted?: PropertyAbort;
  /**
   * After a failure on `endpointId`: the same property without what that endpoint belongs to, to
   * look for other causes (list histories leave out the failing family); undefined when none is left.
   */
  without?(endpointId: string): PropertyDef | undefined;
}
