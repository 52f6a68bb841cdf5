import type fc from 'fast-check';
import type { Answer } from '../core/property-client.ts';
import { checkAnswer } from '../core/expectations.ts';
import { hasNonAscii } from '../arbitraries/param-arbitraries.ts';
import type { GeneratedRequest } from '../arbitraries/family-requests.ts';
import { describeValue, resolveParams, type Sym } from '../arbitraries/symbols.ts';
import { shownOf } from '../reference-model/record-match.ts';
import { PropertyViolation, StepVerdict } from '../core/violation.ts';
import { citeRuleOrDecision } from '../../../contract/assertions/index.ts';
import { pagedAssertion } from '../../conform/cite.ts';
import { inScope, LIST_LIMIT, type RunContext, type RunModel } from './run-context.ts';

/**
 * The commands of the model-based properties. Each sends one request, checks the answer against
 * what the reference model allows, updates the model from what the target did, and only then throws
 * the step's strongest violation (so the cleanup knows everything the run may have created).
 */

type Cmd = fc.AsyncCommand<RunModel, RunContext>;

function mutationNote(req: GeneratedRequest): string {
  return req.mutation ? ` — breaks ${req.mutation.path} (${req.mutation.rule})` : '';
}

/**
 * A create, delete or update of one family record. A create is recorded whatever the answer (the
 * model keeps what the target may have made); a delete or update breaking a rule is applied only
 * when the target accepted it anyway.
 */
export class WriteCommand implements Cmd {
  constructor(
    readonly action: 'create' | 'delete' | 'update',
    readonly req: GeneratedRequest,
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: RunModel, ctx: RunContext): Promise<void> {
    const endpoint = ctx.endpoints[this.action];
    if (!endpoint) return;
    const params = resolveParams(this.req.params, ctx.scope);
    const ident = m.family.identOf(params);
    const verdict = new StepVerdict(ctx.minLevel);
    const mutation = this.req.mutation;
    const exp =
      this.action === 'create'
        ? m.family.expectCreate(ident, mutation, hasNonAscii(params))
        : this.action === 'delete'
          ? m.family.expectDelete(ident, mutation)
          : m.family.expectUpdate(ident, mutation);
    const answer = await ctx.client.call(endpoint, params, verdict);
    checkAnswer(answer, exp, verdict);
    if (this.action === 'create') m.family.applyCreate(ident, shownOf(ctx.family, params), answer.outcome);
    else if (!mutation || answer.outcome === 'ok') {
      if (this.action === 'delete') m.family.applyDelete(ident, answer.outcome);
      else m.family.applyUpdate(ident, params, answer.outcome);
    }
    verdict.throwIfAny();
  }
  toString(): string {
    return `${this.action} ${describeValue(this.req.params)}${mutationNote(this.req)}`;
  }
}

/** The paged-list envelope `data`: {data: rows, total_count}. */
function pagedRows(answer: Answer, verdict: StepVerdict): Record<string, unknown>[] | undefined {
  const data = answer.envelope?.data as { data?: unknown; total_count?: unknown } | undefined;
  if (!data || typeof data !== 'object' || !Array.isArray(data.data) || typeof data.total_count !== 'number') {
    verdict.add(
      new PropertyViolation(
        pagedAssertion(answer.endpoint, 'data'),
        answer.endpoint.id,
        'list.shape',
        `a list answers data = {data: [...], total_count: number}, got ${JSON.stringify(answer.envelope?.data).slice(0, 160)}`,
        answer.exchange,
      ),
    );
    return undefined;
  }
  const rows = data.data.filter((r): r is Record<string, unknown> => r !== null && typeof r === 'object' && !Array.isArray(r));
  if (data.data.length < LIST_LIMIT && data.total_count !== data.data.length) {
    verdict.add(
      new PropertyViolation(
        pagedAssertion(answer.endpoint, 'total'),
        answer.endpoint.id,
        'list.total-count',
        `total_count is ${data.total_count} but the whole list (one page of limit ${LIST_LIMIT}) has ${data.data.length} records`,
        answer.exchange,
      ),
    );
  }
  return rows;
}

/**
 * After a name-filtered list disagreed with the model: is the filter the cause, not the writes? Yes
 * when the only problems were rows the filter should have left out and instances it should have
 * shown, and the list without the name filter does show every one of those instances.
 */
async function filterIsTheCause(m: RunModel, ctx: RunContext, params: Record<string, unknown>, nameParam: string): Promise<boolean> {
  const found = m.family.lastReconcile;
  if (found.other > 0) return false;
  const { [nameParam]: _filter, ...unfiltered } = params;
  const answer = await ctx.client.call(ctx.endpoints.list, unfiltered);
  const rows = (answer.envelope?.data as { data?: unknown } | undefined)?.data;
  if (answer.outcome !== 'ok' || !Array.isArray(rows)) return false;
  const listed = new Set(
    rows
      .map((r) => m.family.identOfRecord(r as Record<string, unknown>))
      .filter((i) => i !== undefined)
      .map((i) => m.family.key(i!)),
  );
  return found.missing.every((ident) => listed.has(m.family.key(ident)));
}

export class ListCommand implements Cmd {
  /** `slot`: also filter on the name (contains match) with the run's name of that slot. */
  constructor(readonly slot?: string) {}
  check(): boolean {
    return true;
  }
  async run(m: RunModel, ctx: RunContext): Promise<void> {
    const f = ctx.family;
    const { tenantQuery, nameQuery } = f.listing ?? {};
    const filter = this.slot !== undefined && nameQuery ? `${ctx.scope.prefix}${this.slot}` : undefined;
    const params: Record<string, unknown> = { limit: LIST_LIMIT };
    if (tenantQuery) params[tenantQuery] = ctx.scope.tenant;
    if (nameQuery) {
      if (filter !== undefined) params[nameQuery] = filter;
      else if (!f.scopeParam) params[nameQuery] = ctx.scope.prefix; // tenants: the run's prefix is its scope
    }
    const verdict = new StepVerdict(ctx.minLevel);
    const answer = await ctx.client.call(ctx.endpoints.list, params, verdict);
    checkAnswer(answer, m.family.expectList(), verdict);
    if (answer.outcome === 'ok') {
      const rows = pagedRows(answer, verdict);
      if (rows) {
        const mine = rows.filter((r) => {
          const ident = m.family.identOfRecord(r);
          return ident ? inScope(ctx, ident) : false;
        });
        const problems = m.family.reconcile(
          mine,
          (ident) => inScope(ctx, ident) && (filter === undefined || ident[f.nameParam].includes(filter)),
        );
        if (problems.length > 0) {
          const filterAtFault = filter !== undefined && nameQuery !== undefined && (await filterIsTheCause(m, ctx, params, nameQuery));
          verdict.add(
            new PropertyViolation(
              filterAtFault ? citeRuleOrDecision(ctx.endpoints.list.id, 'match', nameQuery).id : f.manages,
              ctx.endpoints.list.id,
              filterAtFault ? 'list.filter-matches-model' : 'list.matches-model',
              `the list does not show what the run's creates and deletes left: ${problems.slice(0, 4).join('; ')}${problems.length > 4 ? ` (and ${problems.length - 4} more)` : ''}`,
              answer.exchange,
            ),
          );
        }
      }
    }
    verdict.throwIfAny();
  }
  toString(): string {
    return this.slot !== undefined ? `list (name contains $PREFIX${this.slot})` : 'list';
  }
}

/** Binds (`bind`) or unbinds (`unbind`) a schema and a resource, checking the answer against the model. */
export class BindingCommand implements Cmd {
  constructor(
    readonly direction: 'bind' | 'unbind',
    readonly req: GeneratedRequest,
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: RunModel, ctx: RunContext): Promise<void> {
    if (!m.bindings || !ctx.binding) return;
    const params = resolveParams(this.req.params, ctx.scope);
    const verdict = new StepVerdict(ctx.minLevel);
    const schema = String(params.schema_name);
    const resource = String(params.resource_name);
    const binding = this.direction === 'bind';
    const exp = binding
      ? m.bindings.expectBind(String(params.tenant), schema, resource, this.req.mutation)
      : m.bindings.expectUnbind(schema, resource, this.req.mutation);
    const answer = await ctx.client.call(binding ? ctx.binding.endpoints.create : ctx.binding.endpoints.delete, params, verdict);
    checkAnswer(answer, exp, verdict);
    if (!this.req.mutation && params.tenant === ctx.scope.tenant) {
      if (binding) m.bindings.applyBind(schema, resource, answer.outcome);
      else m.bindings.applyUnbind(schema, resource, answer.outcome);
    }
    verdict.throwIfAny();
  }
  toString(): string {
    return `${this.direction} ${describeValue(this.req.params)}${mutationNote(this.req)}`;
  }
}

/** Lists the resources bound to one schema of the run and compares them with the model. */
export class ListBindingsCommand implements Cmd {
  constructor(readonly schema: Sym) {}
  check(): boolean {
    return true;
  }
  async run(m: RunModel, ctx: RunContext): Promise<void> {
    if (!m.bindings) return;
    const schema = this.schema.resolve(ctx.scope);
    await listBindings(m, ctx, schema);
  }
  toString(): string {
    return `list bindings of ${describeValue(this.schema)}`;
  }
}

export async function listBindings(m: RunModel, ctx: RunContext, schema: string): Promise<void> {
  const b = m.bindings!;
  const e = ctx.binding!.endpoints.list;
  const verdict = new StepVerdict(ctx.minLevel);
  const answer = await ctx.client.call(e, { tenant: ctx.scope.tenant, schema_name: schema, limit: LIST_LIMIT }, verdict);
  checkAnswer(answer, b.expectList(ctx.scope.tenant, schema), verdict);
  if (answer.outcome === 'ok') {
    const rows = pagedRows(answer, verdict);
    if (rows) {
      // Rows as in the reference ({data_type: "schema", data: [resources]}) or one row per binding.
      const listed: string[] = [];
      for (const r of rows) {
        if (r.data_type === 'schema' && Array.isArray(r.data)) listed.push(...r.data.filter((x): x is string => typeof x === 'string'));
        else if (typeof r.resource_name === 'string' && (r.schema_name === undefined || r.schema_name === schema))
          listed.push(r.resource_name);
      }
      const problems = b.reconcile(
        schema,
        listed.filter((r) => r.startsWith(ctx.scope.prefix)),
      );
      if (problems.length > 0)
        verdict.add(
          new PropertyViolation(
            citeRuleOrDecision(e.id, 'response').id,
            e.id,
            'bind-list.matches-model',
            `the bindings listed for ${schema} differ from the run's binds: ${problems.slice(0, 4).join('; ')}`,
            answer.exchange,
          ),
        );
    }
  }
  verdict.throwIfAny();
}
