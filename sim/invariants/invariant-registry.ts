/**
 * Invariant checkers of the model, each with a name, run after every event (by chaos runs and by
 * tests) and reportable by name. A checker returns nothing when the invariant holds, or a text
 * describing the violation.
 */
export type InvariantChecker = () => string | undefined | void;

export interface InvariantViolation {
  name: string;
  message: string;
  /** Virtual time and event count when the violation was seen. */
  at: number;
  event: number;
}

export class InvariantRegistry {
  private readonly checkers = new Map<string, InvariantChecker>();
  private readonly counts = new Map<string, number>();

  /** Registers a checker under a unique name (e.g. `raft.election-safety`). */
  register(name: string, checker: InvariantChecker): void {
    if (this.checkers.has(name)) throw new Error(`invariant ${name} is registered twice`);
    this.checkers.set(name, checker);
    this.counts.set(name, 0);
  }

  names(): string[] {
    return [...this.checkers.keys()];
  }

  /** Runs every checker once; returns the violations found (empty when all hold). */
  checkAll(at: number, event: number): InvariantViolation[] {
    const out: InvariantViolation[] = [];
    for (const [name, check] of this.checkers) {
      this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
      const problem = check();
      if (problem) out.push({ name, message: problem, at, event });
    }
    return out;
  }

  /** How many times each checker ran. */
  checkCounts(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }
}
