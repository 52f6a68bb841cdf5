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

/**
 * Checks a set of invariants at once: the first violation text of each broken one, by name, or
 * nothing while all hold. For a part that keeps its violations in one map (Raft, storage), so a check
 * after an event is one call for the set rather than one per invariant.
 */
export type InvariantSetChecker = () => ReadonlyMap<string, string> | undefined;

/** One registration: a single checker, or a set of invariants checked together. */
interface Registered {
  readonly names: readonly string[];
  readonly check: InvariantChecker | undefined;
  readonly checkSet: InvariantSetChecker | undefined;
  count: number;
}

export class InvariantRegistry {
  /** In registration order; an array (not a map) because `checkAll` runs after every engine event. */
  private readonly checkers: Registered[] = [];
  private readonly registered = new Set<string>();

  /** Registers a checker under a unique name (e.g. `raft.election-safety`). */
  register(name: string, checker: InvariantChecker): void {
    this.claim([name]);
    this.checkers.push({ names: [name], check: checker, checkSet: undefined, count: 0 });
  }

  /**
   * Registers invariants checked together, each under its unique name: the same as registering each
   * name with `() => check().get(name)`, in this order (invariant-registry.test.ts compares the two).
   */
  registerSet(names: readonly string[], check: InvariantSetChecker): void {
    this.claim(names);
    this.checkers.push({ names: [...names], check: undefined, checkSet: check, count: 0 });
  }

  private claim(names: readonly string[]): void {
    for (const name of names) if (this.registered.has(name)) throw new Error(`invariant ${name} is registered twice`);
    if (new Set(names).size !== names.length) throw new Error(`invariants ${names.join(', ')}: a name is given twice`);
    for (const name of names) this.registered.add(name);
  }

  names(): string[] {
    return this.checkers.flatMap((c) => c.names);
  }

  /** Runs every checker once; returns the violations found (empty when all hold). */
  checkAll(at: number, event: number): readonly InvariantViolation[] {
    let out: InvariantViolation[] | undefined;
    for (const c of this.checkers) {
      c.count++;
      if (c.check !== undefined) {
        const problem = c.check();
        if (problem) (out ??= []).push({ name: c.names[0], message: problem, at, event });
        continue;
      }
      const found = c.checkSet!();
      if (found === undefined || found.size === 0) continue;
      for (const name of c.names) {
        const problem = found.get(name);
        if (problem) (out ??= []).push({ name, message: problem, at, event });
      }
    }
    return out ?? NO_VIOLATIONS;
  }

  /** How many times each checker ran. */
  checkCounts(): Record<string, number> {
    return Object.fromEntries(this.checkers.flatMap((c) => c.names.map((name) => [name, c.count])));
  }
}

/** The answer of a clean check, shared (callers only read it). */
const NO_VIOLATIONS: readonly InvariantViolation[] = Object.freeze([]);
