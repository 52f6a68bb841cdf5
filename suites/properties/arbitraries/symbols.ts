/**
 * Names in generated requests are symbolic: a property generates "slot b of the run, at the maximum
 * length", and each run resolves it under its own prefix (`r12-b-xxxx…`). So generated cases are
 * independent of which run executes them (shrinking and replay re-run a case in a fresh run), and a
 * run never touches a name it did not make.
 */

export type NameShape = 'plain' | 'unicode' | 'max';

/** The names a run resolves symbols with. */
export interface Scope {
  /** The tenant the family's instances live in (for tenant-scoped families). */
  tenant: string;
  /** Prefix of every name the run makes. */
  prefix: string;
}

/** Letters outside ASCII (two-, three- and four-byte in UTF-8) for names that are not plain. */
export const UNICODE_TAIL = 'é名🙂';

export class Sym {
  private constructor(
    readonly kind: 'tenant' | 'name' | 'padded-tenant' | 'padded-name',
    readonly slot: string,
    readonly shape: NameShape,
    /** Exact length in code points for `max` names and padded texts. */
    readonly length: number,
  ) {}

  /** The run's tenant. */
  static tenant(): Sym {
    return new Sym('tenant', '', 'plain', 0);
  }

  /** A name of the run: slot `slot` in the given shape (`max`: exactly `length` characters). */
  static name(slot: string, shape: NameShape, length = 0): Sym {
    return new Sym('name', slot, shape, length);
  }

  /** The run's tenant padded with `x` to exactly `length` characters (a too-long tenant). */
  static paddedTenant(length: number): Sym {
    return new Sym('padded-tenant', '', 'max', length);
  }

  /** A name of the run padded with `x` to exactly `length` characters (a too-long name). */
  static paddedName(slot: string, length: number): Sym {
    return new Sym('padded-name', slot, 'max', length);
  }

  resolve(scope: Scope): string {
    switch (this.kind) {
      case 'tenant':
        return scope.tenant;
      case 'padded-tenant':
        return pad(scope.tenant, this.length);
      case 'padded-name':
        return pad(`${scope.prefix}${this.slot}-`, this.length);
      case 'name':
        if (this.shape === 'unicode') return `${scope.prefix}${this.slot}-${UNICODE_TAIL}`;
        if (this.shape === 'max') return pad(`${scope.prefix}${this.slot}-`, this.length);
        return `${scope.prefix}${this.slot}`;
    }
  }

  /** How the symbol reads in a counterexample. */
  toJSON(): string {
    switch (this.kind) {
      case 'tenant':
        return '$TENANT';
      case 'padded-tenant':
        return `$TENANT+x…(${this.length} chars)`;
      case 'padded-name':
        return `$PREFIX${this.slot}-x…(${this.length} chars)`;
      case 'name':
        if (this.shape === 'unicode') return `$PREFIX${this.slot}-${UNICODE_TAIL}`;
        if (this.shape === 'max') return `$PREFIX${this.slot}-x…(${this.length} chars)`;
        return `$PREFIX${this.slot}`;
    }
  }
}

/** `stem` cut or padded with `x` to exactly `length` code points. */
function pad(stem: string, length: number): string {
  const chars = [...stem];
  if (chars.length >= length) return chars.slice(0, length).join('');
  return stem + 'x'.repeat(length - chars.length);
}

/** Replaces every symbol in a generated value by its name in `scope` (deeply; other values are copied). */
function resolve(value: unknown, scope: Scope): unknown {
  if (value instanceof Sym) return value.resolve(scope);
  if (Array.isArray(value)) return value.map((v) => resolve(v, scope));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = resolve(v, scope);
    return out;
  }
  return value;
}

export function resolveParams(params: Record<string, unknown>, scope: Scope): Record<string, unknown> {
  return resolve(params, scope) as Record<string, unknown>;
}

/** A generated value as it reads in a counterexample: symbols by name, long texts cut. */
export function describeValue(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'string') {
      const n = [...v].length;
      return n > 48 ? `${[...v].slice(0, 24).join('')}…(${n} chars)` : v;
    }
    return v;
  });
}
