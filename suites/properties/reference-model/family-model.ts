import type { EndpointContract, FamilyListing, ResourceFamilyContract } from '../../../contract/core/types.ts';
import { A } from '../../conform/cite.ts';
import { requestAssertion } from '../core/citations.ts';
import type { Expectation } from '../core/expectations.ts';
import { uncertain } from '../core/expectations.ts';
import type { Outcome } from '../core/property-client.ts';
import type { Mutation } from '../arbitraries/param-arbitraries.ts';
import type { FamilyEndpoints } from './families.ts';
import { mismatches, OMITTED, quotaWith, shownFromRecord, shownKey, type Shown } from './record-match.ts';

/**
 * The reference model of one family, written from the spec: which instances exist after each
 * accepted create and delete, what each request may be answered, and what the list must show.
 *
 * Where the spec leaves a behaviour open, the model accepts every plausible answer and keeps every
 * state it can lead to, resolving them when a list shows which one the target chose:
 * - a create of a name that exists may be refused (uniqueness) or accepted (upsert or no-op): after
 *   an accepted one, the list may show the old or the new fields;
 * - a delete of a name that does not exist may succeed (idempotent) or fail;
 * - a tenant update without `desc` may keep it or clear it; with a partial `config` it may merge
 *   the given fields into the stored quota or into the defaults;
 * - an answer the model cannot interpret (5xx, no answer) leaves the instance "maybe" there.
 * The model always follows what the target did, so one deviation is reported once, not again at
 * every later step.
 */

export interface Entry {
  ident: Readonly<Record<string, string>>;
  /** What the list may show for it: one of these. */
  candidates: Shown[];
  /** The target may or may not hold it. */
  maybe: boolean;
}

export type Ident = Readonly<Record<string, string>>;

const REFUSED: readonly Outcome[] = ['invalid', 'failure'];

function dedupe(list: Shown[]): Shown[] {
  const seen = new Set<string>();
  return list.filter((s) => {
    const k = shownKey(s);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Optional behaviours of a family that another part of the model knows about (schema bindings). */
export interface DeleteGuard {
  /** The spec does not say what a delete does here (a schema with bindings): any answer goes. */
  deleteIsOpen(ident: Ident): boolean;
  /** The instance was deleted. */
  deleted(ident: Ident): void;
}

export class FamilyModel {
  readonly entries = new Map<string, Entry>();
  /** Every instance the run may have created, with its identity: deleted at the end of the run. */
  readonly touched = new Map<string, Ident>();
  guard?: DeleteGuard;

  /** How the family's list shows an instance (a modelled family always has a listing). */
  private readonly listing: FamilyListing;

  constructor(
    readonly family: ResourceFamilyContract,
    readonly endpoints: FamilyEndpoints,
  ) {
    if (!family.listing) throw new Error(`resource family ${family.key} has no listing to model`);
    this.listing = family.listing;
  }

  /** The statement a valid request of one of the family's endpoints rests on (INFO for path-only endpoints). */
  private cite(e: EndpointContract | undefined): string {
    return requestAssertion(e ?? this.endpoints.create);
  }

  get identityParams(): readonly string[] {
    return this.family.identity;
  }

  /** The identity of a request, when every identity parameter is a text. */
  identOf(params: Record<string, unknown>): Ident | undefined {
    const out: Record<string, string> = {};
    for (const p of this.identityParams) {
      const v = params[p];
      if (typeof v !== 'string') return undefined;
      out[p] = v;
    }
    return out;
  }

  identOfRecord(row: Record<string, unknown>): Ident | undefined {
    const out: Record<string, string> = {};
    const f = this.family;
    if (f.scopeParam) {
      const t = row[this.listing.tenantField ?? f.scopeParam];
      if (typeof t !== 'string') return undefined;
      out[f.scopeParam] = t;
    }
    const n = row[this.listing.nameField];
    if (typeof n !== 'string') return undefined;
    out[f.nameParam] = n;
    return out;
  }

  key(ident: Ident): string {
    return JSON.stringify(this.identityParams.map((p) => ident[p]));
  }

  get(ident: Ident): Entry | undefined {
    return this.entries.get(this.key(ident));
  }

  /**
   * A request breaking one rule must be refused as a parameter error. When a second reason to refuse
   * applies (the name exists; a name longer than the limit cannot exist for a delete or update), a
   * refusal for that reason is accepted too: the spec does not order the checks.
   */
  private invalidExpectation(action: string, m: Mutation, otherReason: boolean): Expectation {
    return {
      allowed: otherReason ? ['invalid', 'failure'] : ['invalid'],
      assertion: m.assertion,
      rule: `${action}.refuses-${m.rule}`,
      says: `a ${action} with ${m.path} ${m.rule === 'missing' ? 'left out' : `breaking its rule (${m.rule})`} must be refused${otherReason ? '' : ' as a parameter error (HTTP 400 or code 400)'}`,
      namesParam: { param: m.path, assertion: m.namingAssertion },
    };
  }

  private static lengthRule(m: Mutation): boolean {
    return m.rule === 'too-long' || m.rule === 'too-short';
  }

  // ---- create ------------------------------------------------------------------------------

  expectCreate(ident: Ident | undefined, mutation: Mutation | undefined, nonAscii: boolean): Expectation {
    if (mutation) return this.invalidExpectation('create', mutation, !!ident && !!this.get(ident));
    const entry = ident ? this.get(ident) : undefined;
    if (entry) {
      return {
        allowed: ['ok', ...REFUSED],
        successData: 'success',
        assertion: this.cite(this.endpoints.create),
        rule: 'create.duplicate',
        says: 'a create of a name that exists may be refused or accepted (the spec leaves it open), never answered otherwise',
      };
    }
    // Names outside ASCII: the spec gives no character set, so accepting them is the project's decision.
    const assertion = nonAscii ? A.decisionNonAscii : this.cite(this.endpoints.create);
    return {
      allowed: ['ok'],
      successData: 'success',
      assertion,
      rule: 'create.new-succeeds',
      says: 'a valid create of a name that does not exist must succeed',
    };
  }

  applyCreate(ident: Ident | undefined, shown: Shown, outcome: Outcome): void {
    if (!ident) return;
    const accepted = outcome === 'ok';
    const unsure = uncertain(outcome);
    if (!accepted && !unsure) return;
    const k = this.key(ident);
    this.touched.set(k, ident);
    const entry = this.entries.get(k);
    if (entry) {
      // Upsert or no-op: the list may show either the stored or the new fields.
      entry.candidates = dedupe([...entry.candidates, shown]);
      if (accepted) entry.maybe = false;
    } else {
      this.entries.set(k, { ident, candidates: [shown], maybe: unsure });
    }
  }

  // ---- delete ------------------------------------------------------------------------------

  expectDelete(ident: Ident | undefined, mutation: Mutation | undefined): Expectation {
    if (mutation) return this.invalidExpectation('delete', mutation, FamilyModel.lengthRule(mutation) || (!!ident && !!this.get(ident)));
    const entry = ident ? this.get(ident) : undefined;
    if (entry && !entry.maybe && !(ident && this.guard?.deleteIsOpen(ident))) {
      return {
        allowed: ['ok'],
        successData: 'success',
        assertion: this.cite(this.endpoints.delete),
        rule: 'delete.existing-succeeds',
        says: 'a delete of an instance that exists must succeed',
      };
    }
    return {
      allowed: ['ok', ...REFUSED],
      successData: 'success',
      assertion: this.cite(this.endpoints.delete),
      rule: 'delete.open',
      says: entry
        ? 'a delete the spec leaves open (an instance that may not exist, or still has bindings) may succeed or be refused'
        : 'a delete of a name that does not exist may succeed or be refused (the spec leaves it open)',
    };
  }

  applyDelete(ident: Ident | undefined, outcome: Outcome): void {
    if (!ident) return;
    const entry = this.get(ident);
    if (outcome === 'ok') {
      if (entry) this.entries.delete(this.key(ident));
      this.guard?.deleted(ident);
    } else if (uncertain(outcome) && entry) {
      entry.maybe = true;
    }
  }

  // ---- update (tenants) --------------------------------------------------------------------

  expectUpdate(ident: Ident | undefined, mutation: Mutation | undefined): Expectation {
    if (mutation) return this.invalidExpectation('update', mutation, FamilyModel.lengthRule(mutation) || (!!ident && !this.get(ident)));
    const entry = ident ? this.get(ident) : undefined;
    if (entry && !entry.maybe)
      return {
        allowed: ['ok'],
        successData: 'success',
        assertion: this.cite(this.endpoints.update),
        rule: 'update.existing-succeeds',
        says: 'a valid update of a tenant that exists must succeed',
      };
    if (entry)
      return {
        allowed: ['ok', ...REFUSED],
        successData: 'success',
        assertion: this.cite(this.endpoints.update),
        rule: 'update.open',
        says: 'an update of a tenant that may not exist may succeed or fail',
      };
    return {
      allowed: ['failure'],
      assertion: A.errorsTenantUpdateUnknown,
      rule: 'update.unknown-fails',
      says: 'an update of a tenant that does not exist must fail (Errors: code 1, text that the tenant was not found)',
      codes: [1, 100],
      textIncludes: { text: 'not found', assertion: A.errorsTenantUpdateUnknown },
    };
  }

  /**
   * After an accepted update: `desc` given replaces it, left out keeps or clears it; `config` left
   * out keeps the quota (spec), given merges into the stored quota or into the defaults.
   */
  applyUpdate(ident: Ident | undefined, params: Record<string, unknown>, outcome: Outcome): void {
    if (!ident) return;
    const entry = this.get(ident);
    if (!entry || (outcome !== 'ok' && !uncertain(outcome))) return;
    const next: Shown[] = [];
    for (const old of entry.candidates) {
      const descs = params.desc === undefined || params.desc === null ? [old.desc, OMITTED] : [params.desc === '' ? OMITTED : params.desc];
      const configs =
        params.config === undefined || params.config === null
          ? [old.config]
          : [quotaWith(params.config, old.config as Record<string, unknown>), quotaWith(params.config)];
      for (const desc of descs) for (const config of configs) next.push({ ...old, desc, config });
    }
    entry.candidates = dedupe(uncertain(outcome) ? [...entry.candidates, ...next] : next);
  }

  // ---- list --------------------------------------------------------------------------------

  expectList(): Expectation {
    return { allowed: ['ok'], assertion: this.cite(this.endpoints.list), rule: 'list.succeeds', says: 'a valid list request must succeed' };
  }

  /**
   * Compares the rows of the run's scope with the model and then follows the rows. `visible` says
   * which identities the query can show (the run's scope and the name filter).
   */
  /**
   * What the last reconcile found, by kind: rows the query's filter should have left out, and
   * instances the list should have shown but did not (so a caller can tell a filter that matches
   * wrongly from a write that was not applied).
   */
  lastReconcile = { filterMismatches: 0, missing: [] as Ident[], other: 0 };

  reconcile(rows: readonly Record<string, unknown>[], visible: (ident: Ident) => boolean): string[] {
    const problems: string[] = [];
    this.lastReconcile = { filterMismatches: 0, missing: [], other: 0 };
    const seen = new Map<string, Record<string, unknown>>();
    for (const row of rows) {
      const ident = this.identOfRecord(row);
      if (!ident) {
        this.lastReconcile.other++;
        problems.push(
          `a row has no ${this.listing.nameField}${this.listing.tenantField ? `/${this.listing.tenantField}` : ''} text: ${JSON.stringify(row).slice(0, 120)}`,
        );
        continue;
      }
      if (!visible(ident)) {
        this.lastReconcile.filterMismatches++;
        problems.push(`row ${JSON.stringify(ident)} does not match the query's filter`);
        continue;
      }
      const k = this.key(ident);
      if (seen.has(k)) {
        this.lastReconcile.other++;
        problems.push(`${JSON.stringify(ident)} is listed twice (names are unique)`);
      }
      seen.set(k, row);
    }
    for (const [k, entry] of [...this.entries]) {
      if (!visible(entry.ident)) continue;
      const row = seen.get(k);
      if (!row) {
        if (!entry.maybe) {
          this.lastReconcile.missing.push(entry.ident);
          problems.push(`${JSON.stringify(entry.ident)} was created and not deleted, but the list does not show it`);
        }
        this.entries.delete(k);
        continue;
      }
      const matching = entry.candidates.filter((c) => mismatches(this.family, row, c).length === 0);
      if (matching.length === 0) {
        const best = mismatches(this.family, row, entry.candidates[entry.candidates.length - 1]);
        this.lastReconcile.other++;
        problems.push(`${JSON.stringify(entry.ident)} shows ${best.join(', ')}`);
      }
      entry.candidates = matching.length > 0 ? matching : [shownFromRecord(this.family, row)];
      entry.maybe = false;
    }
    for (const [k, row] of seen) {
      if (this.entries.has(k)) continue;
      const ident = this.identOfRecord(row)!;
      this.lastReconcile.other++;
      problems.push(`${JSON.stringify(ident)} is listed, but the run never created it (or deleted it)`);
      this.entries.set(k, { ident, candidates: [shownFromRecord(this.family, row)], maybe: false });
      this.touched.set(k, ident);
    }
    return problems;
  }
}
