/**
 * Invariant checkers of the model, each with a name, run after every event (by chaos runs and by
 * tests) and reportable by name. A checker returns nothing when the invariant holds, or a text
 * describing the violation.
 */
export type InvariantChecker = () => string | undefined | void;

/** An invariant of the model (Raft, storage) that did not hold, and when it was seen. */
export interface InvariantViolation {
  name: string;
  message: string;
  /** Virtual time and event count when the violation was seen. */
  at: number;
  event: number;
}

export class InvariantRegistry {
  /** In registration order; an array (not a map) because `checkAll` runs after every engine event. */
  private readonly checkers: { name: string; check: InvariantChecker; count: number }[] = [];

  /** Registers a checker under a unique name (e.g. `raft.election-safety`). */
  register(name: string, checker: InvariantChecker): void {
    if (this.checkers.some((c) => c.name === name)) throw new Error(`invariant ${name} is registered twice`);
    this.checkers.push({ name, check: checker, count: 0 });
  }

  names(): string[] {
    return this.checkers.map((c) => c.name);
  }

  /** Runs every checker once; returns the violations found (empty when all hold). */
  checkAll(at: number, event: number): readonly InvariantViolation[] {
    let out: InvariantViolation[] | undefined;
    for (const c of this.checkers) {
      c.count++;
      const problem = c.check();
      if (problem) (out ??= []).push({ name: c.name, message: problem, at, event });
    }
    return out ?? NO_VIOLATIONS;
  }

  /** How many times each checker ran. */
  checkCounts(): Record<string, number> {
    return Object.fromEntries(this.checkers.map((c) => [c.name, c.count]));
  }
}

/** The answer of a clean check, shared (callers only read it). */
const NO_VIOLATIONS: readonly InvariantViolation[] = Object.freeze([]);
