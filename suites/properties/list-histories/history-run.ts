import { buildParams } from '../../../contract/minimal-params.ts';
import { citeRuleOrDecision } from '../../../contract/assertions/index.ts';
import type { EndpointContract } from '../../../contract/core/types.ts';
import { pagedAssertion } from '../../conform/cite.ts';
import { curlOf, type Exchange } from '../../conform/exchange.ts';
import type { Level } from '../../conform/report-model.ts';
import { describeAnswer, type Answer, type PropertyClient } from '../core/property-client.ts';
import { BindingModel } from '../reference-model/binding-model.ts';
import { FamilyModel } from '../reference-model/family-model.ts';
import { judgePage, MAX_WORLDS, worldsOf, type PageAnswer, type PageProblem } from '../reference-model/list-page.ts';
import { shownOf } from '../reference-model/record-match.ts';
import { levelAtLeast, PropertyViolation } from '../core/violation.ts';
import {
  B,
  describeQuery,
  describeStep,
  flipped,
  resolveRun,
  RUN_TENANTS,
  type FilterValue,
  type QuerySpec,
  type Step,
} from './history-steps.ts';
import type { HistoryFamily } from './list-families.ts';
import { citationOf, inOrder, parsePage, refusalCitation } from './page-causes.ts';
import { cutOf, listParams, pageQuery, pageReader, WHOLE, type Query } from './run-query.ts';

/**
 * One history run against a target: the run's two tenants are made, the steps are sent in order,
 * every write's answer updates the reference model (acknowledged: applied; refused: nothing; no
 * readable answer: maybe), and every list answer is judged by `judgePage`. A wrong answer stops the
 * run with a violation citing the statement it breaks, carrying every request of the run as curl
 * lines. Whatever happens, what the run may have made is deleted at the end.
 */

/** The cause a run is held to while fast-check shrinks: endpoint and assertion of the first failure. */
export interface CauseLock {
  cause?: string;
}

export interface RunSettings {
  client: PropertyClient;
  /** The families whose steps the run sends and whose lists it judges. */
  families: readonly HistoryFamily[];
  /** The tenant family: the run's tenants are made and deleted with it, judged or not. */
  tenants: HistoryFamily;
  /** The run's base name (`{B}` in the steps). */
  base: string;
  baseUrl: string;
  minLevel: Level;
  lock: CauseLock;
}

/** Thrown when a run meets a failure of another cause than the one being shrunk: the case does not count. */
export class OtherCause extends Error {}

const causeOf = (v: PropertyViolation) => `${v.endpointId} ${v.assertion}`;

export class HistoryRun {
  readonly models = new Map<string, FamilyModel>();
  readonly bindings?: BindingModel;
  /** Lists judged, for the run's summary. */
  judged = 0;
  private readonly byTag: Map<string, HistoryFamily>;
  private readonly lastQuery = new Map<string, Query>();
  /** The families the history had steps of. */
  private readonly stepped = new Set<string>();
  /** Values each family's creates wrote, by record field, in first-written order (what filter references pick from). */
  private readonly written = new Map<string, Map<string, string[]>>();
  private readonly transcript: { label: string; ex: Exchange }[] = [];
  private readonly tenants: HistoryFamily;

  constructor(private readonly s: RunSettings) {
    this.byTag = new Map(s.families.map((h) => [h.tag, h]));
    for (const h of [s.tenants, ...s.families]) this.models.set(h.tag, new FamilyModel(h.family, h.endpoints));
    this.tenants = s.tenants;
    const schemas = s.families.find((h) => h.binding);
    if (schemas) this.bindings = new BindingModel(this.models.get(schemas.tag)!);
  }

  private resolve<T>(value: T): T {
    return resolveRun(value, this.s.base);
  }

  /** A text with the run's base name written `{B}` again (labels read the same in every run). */
  private symbolic(text: string): string {
    return text.split(this.s.base).join(B);
  }

  private remember(h: HistoryFamily, params: Record<string, unknown>): void {
    let byField = this.written.get(h.tag);
    if (!byField) this.written.set(h.tag, (byField = new Map()));
    const add = (field: string, v: unknown) => {
      if (typeof v !== 'string') return;
      const list = byField.get(field) ?? [];
      if (!list.includes(v)) list.push(v);
      byField.set(field, list);
    };
    add(h.family.listing!.nameField, params[h.family.nameParam]);
    for (const v of h.visible) add(h.family.listing!.shows.find((x) => x.param === v.param)?.field ?? v.param, params[v.param]);
  }

  /** The text a filter value stands for in this run. */
  private filterText(h: HistoryFamily, param: string, v: FilterValue): string {
    if (typeof v === 'string') return this.resolve(v);
    const field = h.filters.find((f) => f.param === param)!.field;
    const values = this.written.get(h.tag)?.get(field) ?? [];
    return values.length === 0 ? 'a' : cutOf(values[v.pick % values.length], v.cut);
  }

  private concrete(h: HistoryFamily, q: QuerySpec): Query {
    const filters = Object.fromEntries(Object.entries(q.filters).map(([p, v]) => [p, this.filterText(h, p, v)]));
    if (typeof q.page === 'number') return { ...q, filters, page: q.page };
    // The records the model is sure match: their pages, or the first page past them.
    const model = this.models.get(h.tag)!;
    const query = pageQuery(h, { ...q, filters, page: 1 });
    const reader = pageReader(h, { ...q, filters, page: 1 });
    const count = [...model.entries.values()].filter(
      (e) => !e.maybe && e.candidates.some((c) => query.failedFilter(reader.viewOf(e.ident, c)) === undefined),
    ).length;
    const pages = Math.ceil(count / q.limit);
    const page = q.page === 'past' ? pages + 1 : pages === 0 ? 1 : 1 + (q.page.inside % pages);
    return { ...q, filters, page };
  }

  /** A write's parameters in this run: names resolved, and the identity of a written instance when the step refers to one. */
  private writeParams(h: HistoryFamily, step: Extract<Step, { kind: 'create' | 'delete' | 'update' }>): Record<string, unknown> {
    const params = this.resolve(step.params) as Record<string, unknown>;
    // Never the run's own tenants: every other family's instances live in them.
    const own = new Set<string>(RUN_TENANTS.map((t) => this.resolve(t)));
    const touched = [...this.models.get(h.tag)!.touched.values()].filter(
      (ident) => h.family.scopeParam || !own.has(ident[h.family.nameParam]),
    );
    if (step.again === undefined || touched.length === 0) return params;
    return { ...params, ...touched[step.again % touched.length] };
  }

  private async call(e: EndpointContract, params: Record<string, unknown>, label: string): Promise<Answer> {
    const answer = await this.s.client.call(e, params);
    this.transcript.push({ label, ex: answer.exchange });
    return answer;
  }

  /** The run's requests as a shell script: a comment per step, then its curl line. */
  curlLines(): string[] {
    return this.transcript.flatMap(({ label, ex }) => [`# ${label}`, curlOf(this.s.baseUrl, ex)]);
  }

  /** Stops the run with `v` (or, while shrinking another cause, ends it as a case that does not count). */
  private raise(v: PropertyViolation): void {
    if (!levelAtLeast(v.level, this.s.minLevel)) return;
    if (this.s.lock.cause === undefined) this.s.lock.cause = causeOf(v);
    else if (this.s.lock.cause !== causeOf(v)) throw new OtherCause(v.message);
    v.names = `{B} = ${this.s.base}`;
    v.transcript = this.curlLines();
    throw v;
  }

  /** Makes the run's two tenants; a target that refuses them cannot run a history. */
  async setUp(): Promise<boolean> {
    const model = this.models.get(this.tenants.tag)!;
    let made = 0;
    for (const [i, name] of RUN_TENANTS.entries()) {
      const params = this.resolve(
        buildParams(this.tenants.endpoints.create, { [this.tenants.family.nameParam]: name, desc: 'mqsim list histories; safe to delete' }),
      );
      const answer = await this.call(this.tenants.endpoints.create, params, `set-up: the run's ${i === 0 ? 'first' : 'second'} tenant`);
      model.applyCreate(model.identOf(params), shownOf(this.tenants.family, params), answer.outcome);
      if (answer.outcome === 'ok') made++;
    }
    return made > 0;
  }

  /**
   * Runs one step; returns the step as it ran (references taken, `{B}` for the run's base name), the
   * line a counterexample shows.
   */
  async run(step: Step, index: number): Promise<string> {
    const h = this.byTag.get(step.tag);
    if (!h) return describeStep(step);
    this.stepped.add(h.tag);
    const model = this.models.get(h.tag)!;
    switch (step.kind) {
      case 'create':
      case 'delete':
      case 'update': {
        const e = step.kind === 'create' ? h.endpoints.create : step.kind === 'delete' ? h.endpoints.delete : h.endpoints.update;
        if (!e) return describeStep(step);
        const params = this.writeParams(h, step);
        const line = this.symbolic(describeStep({ kind: step.kind, tag: step.tag, params }));
        const answer = await this.call(e, params, `${index + 1}. ${line}`);
        const ident = model.identOf(params);
        if (step.kind === 'create') {
          this.remember(h, params);
          model.applyCreate(ident, shownOf(h.family, params), answer.outcome);
        } else if (step.kind === 'delete') model.applyDelete(ident, answer.outcome);
        else model.applyUpdate(ident, params, answer.outcome);
        return line;
      }
      case 'list': {
        const q = this.concrete(h, step.query);
        const line = this.symbolic(describeStep({ ...step, query: q }));
        await this.judgedList(h, q, `${index + 1}. ${line}`);
        const again = step.then === 'flip' ? flipped(q) : q;
        if (step.then) await this.judgedList(h, again, `${index + 1}. (again) ${this.symbolic(describeQuery(again))}`);
        this.lastQuery.set(h.tag, again);
        return line;
      }
      case 'again': {
        const last = this.lastQuery.get(h.tag);
        const line = describeStep(step);
        if (!last) return `${line} (no list before: nothing sent)`;
        const q = step.flip ? flipped(last) : last;
        this.lastQuery.set(h.tag, q);
        const full = `${line}: ${this.symbolic(describeQuery(q))}`;
        await this.judgedList(h, q, `${index + 1}. ${full}`);
        return full;
      }
      case 'bind':
      case 'unbind': {
        const line = describeStep(step);
        await this.bindStep(h, step.kind, step.params, `${index + 1}. ${line}`);
        return line;
      }
      case 'bindings': {
        const line = describeStep(step);
        await this.listBindings(h, step.schema, `${index + 1}. ${line}`);
        return line;
      }
    }
  }

  /**
   * Every family's whole scope once more after the last step: as it is (which shows every record, so
   * each possible state is settled); in the first tenant sorted by each field but the tenant
   * ascending and by name descending too (which leaves no room for a record kept at a wrong place or
   * a direction kept from an earlier read); then walked in pages of two by name, from the last. Only
   * the families the history had steps of: the others hold nothing of the run.
   */
  async finalReads(): Promise<void> {
    for (const h of this.s.families.filter((x) => this.stepped.has(x.tag))) {
      const scope = h.family.scopeParam ? h.filters[0] : h.filters.find((x) => x.source.kind === 'name')!;
      const values = !h.family.scopeParam ? [B] : scope.match === 'exact' ? [...RUN_TENANTS] : [RUN_TENANTS[0]];
      const whole = (v: string): Query => ({ filters: { [scope.param]: this.resolve(v) }, limit: WHOLE, page: 1 });
      for (const v of values) await this.judgedList(h, whole(v), `final: the whole ${h.tag} list of ${v}`);
      const first = whole(values[0]);
      const byName = h.sortFields.find((f) => f.source.kind === 'name');
      const sorts = [
        ...h.sortFields.filter((f) => f.source.kind !== 'tenant').map((f) => ({ field: f.field, by: 'asc' as const })),
        ...(byName ? [{ field: byName.field, by: 'desc' as const }] : []),
      ];
      for (const sort of sorts)
        await this.judgedList(h, { ...first, sort }, `final: the whole ${h.tag} list of ${values[0]} sorted by ${sort.field} ${sort.by}`);
      if (!byName) continue;
      const count = this.models.get(h.tag)!.entries.size;
      for (let page = 1; page <= Math.ceil(count / 2) + 1; page++)
        await this.judgedList(
          h,
          { ...first, sort: { field: byName.field, by: 'desc' }, limit: 2, page },
          `final: the ${h.tag} list of ${values[0]} by ${byName.field} desc, page ${page} of 2 records`,
        );
    }
  }

  // ---- lists -------------------------------------------------------------------------------

  private async judgedList(h: HistoryFamily, q: Query, label: string): Promise<void> {
    const model = this.models.get(h.tag)!;
    const query = pageQuery(h, q);
    const reader = pageReader(h, q);
    // Too many possible states to try against one page: the whole scope shows which hold.
    if (worldsOf(model, query, reader) > MAX_WORLDS) {
      const scope = Object.fromEntries(Object.entries(q.filters).slice(0, 1));
      await this.judgedList(
        h,
        { filters: scope, limit: WHOLE, page: 1 },
        `${label} (first the whole scope: it decides which of the possible states hold)`,
      );
    }
    const answer = await this.call(h.endpoints.list, listParams(q), label);
    const page = this.pageOf(h, q, answer);
    if (!page) return;
    this.judged++;
    const verdict = judgePage(model, query, page, reader);
    if (verdict.kind === 'deviates') await this.raisePage(h, q, verdict.problems, answer);
  }

  /** The page of a list answer; a refusal, a server error or an answer that is no page stops the run. */
  private pageOf(h: HistoryFamily, q: Query, answer: Answer): PageAnswer | undefined {
    const e = h.endpoints.list;
    if (answer.outcome !== 'ok') {
      // A valid list request the spec lets no server refuse.
      this.raise(
        new PropertyViolation(
          refusalCitation(h, q),
          e.id,
          'list.answered',
          `the list ${describeQuery(q)} was not answered with a page: ${describeAnswer(answer)}`,
          answer.exchange,
        ),
      );
      return undefined;
    }
    const page = parsePage(answer);
    if (!page)
      this.raise(
        new PropertyViolation(
          pagedAssertion(e, 'data'),
          e.id,
          'list.shape',
          `a list answers data = {data: [...], total_count: number}, got ${JSON.stringify(answer.envelope?.data).slice(0, 160)}`,
          answer.exchange,
        ),
      );
    return page;
  }

  /**
   * Stops the run at a page that no state of the model explains, citing the statement its cause
   * breaks. The cause is read on the same query as one page (limit 10000, page 1), where paging
   * plays no part: a record it shows that the writes left out, a filter it does not apply, a total
   * or an order it gets wrong there is the list's fault, whatever the small page showed of it;
   * when that page is right, the paging is at fault (an order problem is then the page's slice).
   * A page whose own keys are out of order needs no second read: the sort is at fault.
   */
  private async raisePage(h: HistoryFamily, q: Query, problems: readonly PageProblem[], answer: Answer): Promise<void> {
    const e = h.endpoints.list;
    let cause = problems[0];
    let paging = false;
    let note = '';
    // A page whose own keys are out of the order asked for breaks the sort, whatever else a second read shows.
    const unordered = cause.kind === 'order' && q.sort !== undefined && !inOrder(parsePage(answer)!, q.sort);
    if (q.limit < WHOLE && !unordered) {
      const whole = { ...q, limit: WHOLE, page: 1 };
      const wholeAnswer = await this.call(
        e,
        listParams(whole),
        `diagnosis: the same query as one page (${this.symbolic(describeQuery(whole))})`,
      );
      const wholePage = parsePage(wholeAnswer);
      const verdict = wholePage && judgePage(this.models.get(h.tag)!, pageQuery(h, whole), wholePage, pageReader(h, whole));
      if (verdict?.kind === 'deviates') {
        cause = verdict.problems[0];
        note = ` The same query as one page (limit ${WHOLE}) shows the cause: ${cause.text}.`;
      } else if (verdict?.kind === 'conforms') {
        paging = true;
        note = ` The same query as one page (limit ${WHOLE}) is right: the paging is at fault.`;
      }
    }
    // A record left out of a filtered list: the filter's fault when the list without the other filters shows it.
    const [scope, ...narrowing] = Object.keys(q.filters);
    if (cause.kind === 'missing-record' && narrowing.length > 0) {
      const scoped: Query = { filters: { [scope]: q.filters[scope] }, limit: WHOLE, page: 1 };
      const scopedAnswer = await this.call(
        e,
        listParams(scoped),
        `diagnosis: the list without the other filters (${this.symbolic(describeQuery(scoped))})`,
      );
      const model = this.models.get(h.tag)!;
      const shown = new Set(
        (parsePage(scopedAnswer)?.rows ?? [])
          .map((r) => model.identOfRecord(r))
          .filter((i) => i !== undefined)
          .map((i) => model.key(i!)),
      );
      if (cause.missing!.every((i) => shown.has(model.key(i)))) {
        cause = { kind: 'filter', param: narrowing[0], text: cause.text };
        note += ` The list without ${narrowing.join(' and ')} shows the missing records: the filter leaves out records it matches.`;
      }
    }
    const { assertion, rule } = citationOf(h, q, cause, paging);
    const text = problems
      .slice(0, 3)
      .map((p) => p.text)
      .join('; ');
    this.raise(
      new PropertyViolation(
        assertion,
        e.id,
        rule,
        `GET ${e.path}?${describeQuery(q)} after the history: ${text}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}.${note}`,
        answer.exchange,
      ),
    );
  }

  // ---- schema bindings ---------------------------------------------------------------------

  private async bindStep(
    h: HistoryFamily,
    kind: 'bind' | 'unbind',
    symbolic: Readonly<Record<string, unknown>>,
    label: string,
  ): Promise<void> {
    const b = h.binding;
    if (!b || !this.bindings) return;
    const params = this.resolve(symbolic) as Record<string, unknown>;
    const answer = await this.call(kind === 'bind' ? b.create : b.delete, params, label);
    const schema = String(params.schema_name);
    const resource = String(params[b.family.nameParam]);
    if (kind === 'bind') this.bindings.applyBind(schema, resource, answer.outcome);
    else this.bindings.applyUnbind(schema, resource, answer.outcome);
  }

  private async listBindings(h: HistoryFamily, schema: string, label: string): Promise<void> {
    const b = h.binding;
    if (!b || !this.bindings) return;
    const tenant = this.resolve(RUN_TENANTS[0]);
    const answer = await this.call(b.list, { [b.family.scopeParam ?? 'tenant']: tenant, schema_name: schema, limit: 10, page: 1 }, label);
    if (answer.outcome !== 'ok') return;
    const rows = (answer.envelope?.data as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(rows)) return;
    const listed: string[] = [];
    for (const r of rows as Record<string, unknown>[]) {
      if (r?.data_type === 'schema' && Array.isArray(r.data)) listed.push(...r.data.filter((x): x is string => typeof x === 'string'));
      else if (typeof r?.resource_name === 'string' && (r.schema_name === undefined || r.schema_name === schema))
        listed.push(r.resource_name);
    }
    this.judged++;
    const problems = this.bindings.reconcile(schema, listed);
    if (problems.length > 0)
      this.raise(
        new PropertyViolation(
          citeRuleOrDecision(b.list.id, 'response').id,
          b.list.id,
          'bind-list.matches-model',
          `the bindings listed for ${schema} differ from the history's binds: ${problems.slice(0, 4).join('; ')}`,
          answer.exchange,
        ),
      );
  }

  // ---- cleanup -----------------------------------------------------------------------------

  /** Deletes what the run may have made: bindings, then each family's instances (tenants last). Answers are not judged. */
  async cleanUp(): Promise<void> {
    const quiet = async (e: EndpointContract, params: Record<string, unknown>) => {
      try {
        await this.s.client.call(e, params);
      } catch {
        /* best effort */
      }
    };
    const schemas = this.s.families.find((h) => h.binding);
    if (schemas && this.bindings) {
      const b = schemas.binding!;
      for (const [schema, resource] of this.bindings.touched.values())
        await quiet(b.delete, {
          [b.family.scopeParam ?? 'tenant']: this.resolve(RUN_TENANTS[0]),
          schema_name: schema,
          [b.family.nameParam]: resource,
        });
    }
    const scoped = this.s.families.filter((h) => h.family.scopeParam);
    for (const h of [...scoped.reverse(), this.tenants]) {
      for (const entry of [...this.models.get(h.tag)!.entries.values()])
        await quiet(h.endpoints.delete, buildParams(h.endpoints.delete, { ...entry.ident }));
    }
    // The run's tenants, even when a refused or unreadable answer kept them out of the model.
    for (const name of RUN_TENANTS) {
      const ident = { [this.tenants.family.nameParam]: this.resolve(name) };
      if (!this.models.get(this.tenants.tag)!.get(ident)) await quiet(this.tenants.endpoints.delete, ident);
    }
  }
}
