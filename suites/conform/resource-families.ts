import { familyEndpoint, familyInRole, listingEndpointId } from '../../contract/family-rules.ts';
import type { EndpointContract, ParamSpec, ResourceFamilyContract, RunNames } from '../../contract/core/types.ts';
import { type ConformContext, succeeded } from './conform-context.ts';
import type { Exchange } from './exchange.ts';
import { buildParams } from '../../contract/minimal-params.ts';
import { textOfLength } from './param-values.ts';

/**
 * The contract's resource families as the conformance run uses them: the fixture of each, the
 * family an endpoint belongs to, how an instance is found in its list, and the instances the run
 * created. Field names are merged with the contract by name, so a field an endpoint does not
 * declare is simply not sent. Every family comes from the run's contract (ctx.families), never
 * from a table of this suite.
 */

/** The run's names as the contract's fixture builders take them. */
function runNames(ctx: ConformContext): RunNames {
  return { seed: ctx.seed, tenant: ctx.names.tenant, topic: ctx.names.topic };
}

/** Fields of a valid instance; `suffix` makes instances distinct ('' = the run's fixture). */
export function fixtureFields(ctx: ConformContext, family: ResourceFamilyContract, suffix: string): Record<string, unknown> {
  return family.fixture.fields(runNames(ctx), suffix);
}

/** Companion fields a valid instance needs when `param` takes `value` (the contract's valueFields). */
export function companionFields(
  ctx: ConformContext,
  family: ResourceFamilyContract,
  param: string,
  value: unknown,
  suffix: string,
): Record<string, unknown> {
  return family.fixture.valueFields?.(param, value, runNames(ctx), suffix) ?? {};
}

/** Stem of the texts of exact length the family's own writers pad (a file name in /tmp). */
const conformStem = (seed: number): string => `mqsim-conform-${seed}-`;

/**
 * A valid value of exactly `length` characters for a length-limited parameter of the family's
 * create, or undefined when none can be valid (the in-range case is then skipped with the reason):
 * the family's own writer when it has one; never for the tenant it lives in or a reference to
 * another family's instance or an address; an empty text only for a description; else a plain text.
 */
export function exactText(ctx: ConformContext, family: ResourceFamilyContract, param: ParamSpec, length: number): string | undefined {
  const own = family.fixture.textOfLength?.[param.name];
  if (own) return own(length, conformStem(ctx.seed));
  if (param.name === family.scopeParam) return undefined;
  const meaning = family.meanings?.[param.name];
  if (typeof meaning === 'object' || meaning === 'ipv4-or-network') return undefined;
  if (length === 0 && param.name !== 'desc') return undefined;
  return textOfLength(`${family.fixture.stem}${ctx.seed}${param.name.replace(/_/g, '')}`, length);
}

/** The family whose create endpoint `e` is. */
export function familyByCreate(ctx: ConformContext, e: EndpointContract): ResourceFamilyContract | undefined {
  return familyInRole(ctx.families, 'create', e.id);
}

/** The family whose delete endpoint `e` is. */
export function familyByDelete(ctx: ConformContext, e: EndpointContract): ResourceFamilyContract | undefined {
  return familyInRole(ctx.families, 'delete', e.id);
}

/** The family whose instances the list `e` shows by name. */
export function familyByListing(ctx: ConformContext, e: EndpointContract): ResourceFamilyContract | undefined {
  return ctx.families.find((f) => listingEndpointId(f) === e.id);
}

/** The family with this key in the run's contract. */
export function familyByKey(ctx: ConformContext, key: string): ResourceFamilyContract | undefined {
  return ctx.families.find((f) => f.key === key);
}

/** The list that shows the family's instances by name, when the run's contract has it. */
export function listingEndpoint(ctx: ConformContext, family: ResourceFamilyContract): EndpointContract | undefined {
  return listingEndpointId(family) !== undefined ? familyEndpoint(ctx.contract, family, 'list') : undefined;
}

/** One resource the run created and has not deleted yet. */
interface Created {
  family: ResourceFamilyContract;
  fields: Record<string, unknown>;
}

/**
 * The resources the run creates, so each is deleted once at the end (or earlier by a delete check).
 * Only instances whose create answered success are tracked: a name that already existed on the target
 * is never deleted by the run.
 */
export class CreatedResources {
  private readonly created: Created[] = [];
  /** Fixture fields by family key, for families whose fixture exists. */
  readonly fixtures = new Map<string, Record<string, unknown>>();
  /** Why a family's fixture could not be created (its refusal, or the fixture it depends on), by family key. */
  readonly fixtureProblems = new Map<string, string>();

  constructor(private readonly ctx: ConformContext) {}

  createEndpoint(f: ResourceFamilyContract): EndpointContract | undefined {
    return familyEndpoint(this.ctx.contract, f, 'create');
  }

  deleteEndpoint(f: ResourceFamilyContract): EndpointContract | undefined {
    return familyEndpoint(this.ctx.contract, f, 'delete');
  }

  /** Sends a create; tracks the instance when it succeeded. */
  async create(
    f: ResourceFamilyContract,
    fields: Record<string, unknown>,
    purpose: 'check' | 'fixture' = 'check',
    extraBody: Record<string, unknown> = {},
  ): Promise<Exchange | undefined> {
    const e = this.createEndpoint(f);
    if (!e) return undefined;
    const params = { ...buildParams(e, fields), ...extraBody };
    const ex = await this.ctx.call(e, params, purpose);
    if (succeeded(ex)) {
      const created = { family: f, fields: buildParams(e, fields) };
      this.ctx.order.mark(created);
      this.created.push(created);
    }
    return ex;
  }

  /** The delete request for an instance: the delete endpoint's parameters taken from its fields. */
  deleteParams(f: ResourceFamilyContract, fields: Record<string, unknown>): Record<string, unknown> | undefined {
    const e = this.deleteEndpoint(f);
    return e ? buildParams(e, fields) : undefined;
  }

  /** Sends a delete; forgets the instance when it succeeded. */
  async delete(
    f: ResourceFamilyContract,
    fields: Record<string, unknown>,
    purpose: 'check' | 'cleanup' = 'cleanup',
  ): Promise<Exchange | undefined> {
    const e = this.deleteEndpoint(f);
    if (!e) return undefined;
    const params = buildParams(e, fields);
    const ex = await this.ctx.call(e, params, purpose);
    if (succeeded(ex)) this.forget(f, params);
    return ex;
  }

  isTracked(f: ResourceFamilyContract, fields: Record<string, unknown>): boolean {
    const key = this.deleteParams(f, fields);
    return this.created.some((c) => c.family === f && sameKey(this.deleteParams(f, c.fields), key));
  }

  private forget(f: ResourceFamilyContract, deleteParams: Record<string, unknown>): void {
    const i = this.created.findIndex((c) => c.family === f && sameKey(this.deleteParams(f, c.fields), deleteParams));
    if (i !== -1) this.created.splice(i, 1);
  }

  /** Deletes everything still tracked, newest first (bindings before schemas, users before tenants). */
  async cleanup(): Promise<string[]> {
    const problems: string[] = [];
    // In the order a sequential run created them, whichever endpoints were checked at once.
    for (const c of this.ctx.order.sort([...this.created]).reverse()) {
      const ex = await this.delete(c.family, c.fields, 'cleanup');
      if (ex && !succeeded(ex))
        problems.push(
          `could not delete ${c.family.key} ${JSON.stringify(this.deleteParams(c.family, c.fields))}: HTTP ${ex.response?.status ?? 'none'} ${ex.response?.text.slice(0, 120) ?? ex.error ?? ''}`,
        );
    }
    return problems;
  }
}

function sameKey(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
