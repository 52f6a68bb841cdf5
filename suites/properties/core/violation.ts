import type { Exchange } from '../../conform/exchange.ts';
import type { Level } from '../../conform/report-model.ts';
import { levelOf } from './citations.ts';

const RANK: Record<Level, number> = { INFO: 0, SHOULD: 1, MUST: 2 };

export function levelAtLeast(level: Level, threshold: Level): boolean {
  return RANK[level] >= RANK[threshold];
}

/**
 * A deviation a property observed: which rule of which endpoint, the spec assertion it breaks (whose
 * level says how strongly it binds), and the request that shows it. Thrown inside a property so
 * fast-check shrinks the case that led to it.
 */
export class PropertyViolation extends Error {
  readonly level: Level;

  constructor(
    readonly assertion: string,
    readonly endpointId: string,
    /** Stable rule id, e.g. `create.new-succeeds` or `envelope`. */
    readonly rule: string,
    message: string,
    readonly exchange?: Exchange,
  ) {
    super(message);
    this.name = 'PropertyViolation';
    this.level = levelOf(assertion);
  }

  /** What the symbols of the counterexample stood for in the failing run ($TENANT, $PREFIX). */
  names?: string;

  /** Every request of the failing run in order, as commented curl lines (list histories). */
  transcript?: string[];
}

/**
 * The property cannot observe anything on this target (every answer 401, rate limit never lifts, a
 * fixture it needs cannot be made): the property is reported as skipped with the reason, never as a
 * deviation.
 */
export class PropertyAbort extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PropertyAbort';
  }
}

/**
 * The violations found in one step. All are collected first so the model can follow what the target
 * did; then the strongest one at or above the run's threshold is thrown (weaker ones are ignored in
 * a run that looks only at MUST rules).
 */
export class StepVerdict {
  private readonly found: PropertyViolation[] = [];

  constructor(private readonly minLevel: Level) {}

  add(v: PropertyViolation): void {
    this.found.push(v);
  }

  get violations(): readonly PropertyViolation[] {
    return this.found;
  }

  throwIfAny(): void {
    const relevant = this.found.filter((v) => levelAtLeast(v.level, this.minLevel));
    if (relevant.length === 0) return;
    relevant.sort((a, b) => RANK[b.level] - RANK[a.level]);
    throw relevant[0];
  }
}
