import { A } from '../../conform/cite.ts';
import type { Expectation } from '../core/expectations.ts';
import { uncertain } from '../core/expectations.ts';
import type { Outcome } from '../core/property-client.ts';
import type { Mutation } from '../arbitraries/param-arbitraries.ts';
import type { DeleteGuard, FamilyModel, Ident } from './family-model.ts';

/** Schema bindings are given only by method and path: the requests come from the reference notes (INFO). */
const BIND = A.pathOnlyRequest;

/**
 * Schema bindings (endpoints given only by method and path; rules from the reference notes, INFO).
 * Open points the model accepts either way: binding a schema that does not exist (the reference
 * refuses), binding twice, unbinding what is not bound (the reference always succeeds), deleting a
 * schema that still has bindings (refused, or accepted with the bindings kept or dropped).
 */
export class BindingModel implements DeleteGuard {
  /** schema name → resource name → "maybe" flag. */
  readonly bound = new Map<string, Map<string, boolean>>();
  /** Every binding the run may have made: [schema, resource]. */
  readonly touched = new Map<string, [string, string]>();

  constructor(private readonly schemas: FamilyModel) {
    schemas.guard = this;
  }

  private resources(schema: string): Map<string, boolean> {
    let m = this.bound.get(schema);
    if (!m) this.bound.set(schema, (m = new Map()));
    return m;
  }

  deleteIsOpen(ident: Ident): boolean {
    return (this.bound.get(ident.schema_name)?.size ?? 0) > 0;
  }

  deleted(ident: Ident): void {
    // Bindings of a deleted schema may be dropped with it or kept.
    for (const r of this.bound.get(ident.schema_name)?.keys() ?? []) this.bound.get(ident.schema_name)!.set(r, true);
  }

  private schemaCertain(tenant: string, schema: string): boolean {
    const e = this.schemas.get({ tenant, schema_name: schema });
    return !!e && !e.maybe;
  }

  expectBind(tenant: string, schema: string, resource: string, mutation: Mutation | undefined): Expectation {
    if (mutation)
      return {
        allowed: ['invalid', 'failure'],
        assertion: mutation.assertion,
        rule: `bind.refuses-${mutation.rule}`,
        says: `a bind with ${mutation.path} ${mutation.rule} must be refused`,
        namesParam: { param: mutation.path, assertion: mutation.namingAssertion },
      };
    const known = this.bound.get(schema)?.get(resource);
    if (this.schemaCertain(tenant, schema) && known === undefined)
      return {
        allowed: ['ok'],
        successData: 'success',
        assertion: BIND,
        rule: 'bind.succeeds',
        says: 'binding an existing schema to a new resource must succeed',
      };
    return {
      allowed: ['ok', 'invalid', 'failure'],
      successData: 'success',
      assertion: BIND,
      rule: 'bind.open',
      says: 'binding twice or binding a schema that may not exist may succeed or be refused',
    };
  }

  applyBind(schema: string, resource: string, outcome: Outcome): void {
    if (outcome !== 'ok' && !uncertain(outcome)) return;
    this.touched.set(JSON.stringify([schema, resource]), [schema, resource]);
    const m = this.resources(schema);
    m.set(resource, outcome === 'ok' ? false : (m.get(resource) ?? true));
  }

  expectUnbind(schema: string, resource: string, mutation: Mutation | undefined): Expectation {
    if (mutation)
      return {
        allowed: ['invalid', 'failure'],
        assertion: mutation.assertion,
        rule: `unbind.refuses-${mutation.rule}`,
        says: `an unbind with ${mutation.path} ${mutation.rule} must be refused`,
        namesParam: { param: mutation.path, assertion: mutation.namingAssertion },
      };
    if (this.bound.get(schema)?.get(resource) === false)
      return {
        allowed: ['ok'],
        successData: 'success',
        assertion: BIND,
        rule: 'unbind.succeeds',
        says: 'removing a binding that exists must succeed',
      };
    return {
      allowed: ['ok', 'invalid', 'failure'],
      successData: 'success',
      assertion: BIND,
      rule: 'unbind.open',
      says: 'removing a binding that may not exist may succeed or be refused',
    };
  }

  applyUnbind(schema: string, resource: string, outcome: Outcome): void {
    const m = this.bound.get(schema);
    if (!m) return;
    if (outcome === 'ok') m.delete(resource);
    else if (uncertain(outcome) && m.has(resource)) m.set(resource, true);
  }

  expectList(tenant: string, schema: string): Expectation {
    if (this.schemaCertain(tenant, schema))
      return {
        allowed: ['ok'],
        assertion: BIND,
        rule: 'bind-list.succeeds',
        says: 'listing the bindings of an existing schema must succeed',
      };
    return {
      allowed: ['ok', 'failure'],
      assertion: BIND,
      rule: 'bind-list.open',
      says: 'listing the bindings of a schema that may not exist may succeed or fail',
    };
  }

  /** Compares the resources listed for `schema` (the run's only) with the model, then follows them. */
  reconcile(schema: string, listed: readonly string[]): string[] {
    const problems: string[] = [];
    const m = this.resources(schema);
    const set = new Set(listed);
    for (const [r, maybe] of [...m]) {
      if (set.has(r)) m.set(r, false);
      else {
        if (!maybe) problems.push(`${r} was bound to ${schema} and not unbound, but the list does not show it`);
        m.delete(r);
      }
    }
    for (const r of set) {
      if (m.has(r)) continue;
      problems.push(`${r} is listed as bound to ${schema}, but the run never bound it (or unbound it)`);
      m.set(r, false);
      this.touched.set(JSON.stringify([schema, r]), [schema, r]);
    }
    return problems;
  }
}
