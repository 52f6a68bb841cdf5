import fc from 'fast-check';
import type { EndpointContract } from '../../../contract/core/types.ts';
import type { Level } from '../../conform/report-model.ts';
import { attachedParam, bindingRequestArb, nameArb, requestArb, SLOTS } from '../arbitraries/family-requests.ts';
import type { PropertyDef } from '../core/property-def.ts';
import type { PropertyClient } from '../core/property-client.ts';
import type { ModelledFamily } from '../reference-model/families.ts';
import { PropertyAbort, PropertyViolation } from '../core/violation.ts';
import { BindingCommand, ListBindingsCommand, ListCommand, listBindings, WriteCommand } from './commands.ts';
import { LIST_LIMIT, newRunModel, type RunContext, type RunModel } from './run-context.ts';

export interface ModelPropertyOptions {
  client: PropertyClient;
  seed: number;
  numRuns: number;
  maxCommands: number;
  /** Distinguishes this invocation's names from any an earlier one left behind (see runTagOf). */
  runTag: string;
  /** The API's tenant create, delete and list (the property works in a tenant of its own). */
  tenants: { create: EndpointContract; delete: EndpointContract; list: EndpointContract };
}

type Cmd = fc.AsyncCommand<RunModel, RunContext>;

/** The commands of a family, weighted: creates most, then deletes and lists, updates (tenants), binds (a family with a binding: schemas). */
function commandArb(m: ModelledFamily): fc.Arbitrary<Cmd> {
  const { family: f, endpoints: eps, binding } = m;
  const arbs: { arbitrary: fc.Arbitrary<Cmd>; weight: number }[] = [
    { arbitrary: requestArb(f, eps.create, 1, 3).map((r) => new WriteCommand('create', r)), weight: 5 },
    { arbitrary: requestArb(f, eps.delete, 1, 6).map((r) => new WriteCommand('delete', r)), weight: 2 },
    { arbitrary: fc.option(fc.constantFrom(...SLOTS), { nil: undefined, freq: 2 }).map((s) => new ListCommand(s)), weight: 2 },
  ];
  if (eps.update) arbs.push({ arbitrary: requestArb(f, eps.update, 1, 4).map((r) => new WriteCommand('update', r)), weight: 2 });
  if (binding) {
    const b = binding.endpoints;
    const attached = b.create.params.find((p) => p.name === attachedParam(binding.family));
    arbs.push(
      { arbitrary: bindingRequestArb(binding.family, b.create).map((r) => new BindingCommand('bind', r)), weight: 3 },
      { arbitrary: bindingRequestArb(binding.family, b.delete).map((r) => new BindingCommand('unbind', r)), weight: 1 },
      { arbitrary: nameArb(attached?.maxLength ?? 64).map((s) => new ListBindingsCommand(s)), weight: 1 },
    );
  }
  return fc.oneof(...arbs);
}

/** Deletes everything the run may have made (bindings first); answers are not checked. */
async function cleanup(model: RunModel, ctx: RunContext): Promise<void> {
  const quiet = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch {
      /* cleanup is best effort */
    }
  };
  if (model.bindings && ctx.binding) {
    const b = ctx.binding;
    for (const [schema, resource] of model.bindings.touched.values()) {
      await quiet(() =>
        ctx.client.call(b.endpoints.delete, {
          [b.family.scopeParam ?? 'tenant']: ctx.scope.tenant,
          [attachedParam(b.family)]: schema,
          [b.family.nameParam]: resource,
        }),
      );
    }
  }
  for (const ident of model.family.touched.values()) await quiet(() => ctx.client.call(ctx.endpoints.delete, { ...ident }));
}

function rowsOf(data: unknown): Record<string, unknown>[] {
  const rows = (data as { data?: unknown } | undefined)?.data;
  return Array.isArray(rows) ? rows.filter((r): r is Record<string, unknown> => r !== null && typeof r === 'object') : [];
}

/** Creates the property's tenant; an existing one will do (a run with the same seed made it). */
async function ensureTenant(o: ModelPropertyOptions, tenant: string): Promise<void> {
  const made = await o.client.call(o.tenants.create, { tenant_name: tenant, desc: 'mqsim property suites; safe to delete' });
  if (made.outcome === 'ok') return;
  const listed = await o.client.call(o.tenants.list, { tenant_name: tenant, limit: LIST_LIMIT });
  if (!rowsOf(listed.envelope?.data).some((r) => r.tenant_name === tenant))
    throw new PropertyAbort(`the property's tenant ${tenant} could not be created (${made.outcome}: ${made.text.slice(0, 120)})`);
}

/** Deletes the leftovers of an interrupted earlier run with the same seed (and their schema bindings). */
async function removeLeftovers(m: ModelledFamily, client: PropertyClient, tenant: string, tenantsPrefix: string): Promise<void> {
  const { family: f, endpoints: eps, binding } = m;
  const { tenantQuery, nameQuery } = f.listing ?? {};
  const listParams: Record<string, unknown> = { limit: LIST_LIMIT };
  if (tenantQuery) listParams[tenantQuery] = tenant;
  if (!f.scopeParam && nameQuery) listParams[nameQuery] = tenantsPrefix;
  const left = await client.call(eps.list, listParams);
  const model = newRunModel(m);
  for (const row of rowsOf(left.envelope?.data)) {
    const ident = model.family.identOfRecord(row);
    if (!ident) continue;
    if (f.scopeParam ? ident[f.scopeParam] !== tenant : !ident[f.nameParam].startsWith(tenantsPrefix)) continue;
    if (binding) await unbindLeftover(binding, client, tenant, ident[f.nameParam]);
    await client.call(eps.delete, { ...ident });
  }
}

/** Removes the schemas bound to a leftover resource, so it can be deleted. */
async function unbindLeftover(
  binding: NonNullable<ModelledFamily['binding']>,
  client: PropertyClient,
  tenant: string,
  resource: string,
): Promise<void> {
  const b = binding.family;
  const scope = b.scopeParam ?? 'tenant';
  const attached = attachedParam(b);
  const binds = await client.call(binding.endpoints.list, { [scope]: tenant, [attached]: resource, limit: LIST_LIMIT });
  for (const r of rowsOf(binds.envelope?.data)) {
    for (const res of r.data_type === 'schema' && Array.isArray(r.data) ? r.data : []) {
      await client.call(binding.endpoints.delete, { [scope]: tenant, [attached]: resource, [b.nameParam]: String(res) });
    }
  }
}

/**
 * The model-based property of one family: random sequences of creates (valid and invalid), deletes,
 * lists (whole scope or filtered by name), updates (tenants) and binds (schemas), each checked
 * against the reference model, then a final list, then cleanup. Each run works under its own name
 * prefix in a tenant of the property (`pt<seed>-<family>`), so nothing else on the target can
 * interfere and nothing else is touched.
 */
export function familyProperty(m: ModelledFamily, options: ModelPropertyOptions): PropertyDef {
  const o = { ...options, client: options.client.child() };
  const { family: f, endpoints: eps, binding, tag } = m;
  const tenantDelete = o.tenants.delete;
  const tenant = `pt${o.seed}-${tag}`;
  const tenantsPrefix = `pn${o.seed}-`;
  let runs = 0;
  const endpoints = [
    eps.create,
    eps.delete,
    eps.list,
    ...(eps.update ? [eps.update] : []),
    ...(binding ? Object.values(binding.endpoints) : []),
  ];

  const def: PropertyDef = {
    id: `model.${tag}`,
    checkId: `property.model.${tag}`,
    endpoints,
    // A pass says the family's writes were applied as the reference model expects.
    assertion: f.manages,
    commands: true,
    numRuns: o.numRuns,
    client: o.client,

    async setup() {
      if (f.scopeParam) await ensureTenant(o, tenant);
      await removeLeftovers(m, o.client, tenant, tenantsPrefix);
    },

    async teardown() {
      if (f.scopeParam) await o.client.call(tenantDelete, { tenant_name: tenant }).catch(() => undefined);
    },

    build(minLevel: Level, replayPath?: string) {
      const arb = fc.commands([commandArb(m)], { maxCommands: o.maxCommands, size: 'max', ...(replayPath ? { replayPath } : {}) });
      return fc.asyncProperty(arb, async (cmds) => {
        if (def.aborted) throw def.aborted;
        const n = ++runs;
        const scope = f.scopeParam ? { tenant, prefix: `${o.runTag}r${n}-` } : { tenant: '', prefix: `${tenantsPrefix}${o.runTag}r${n}-` };
        const ctx: RunContext = { client: o.client, family: f, endpoints: eps, ...(binding ? { binding } : {}), scope, minLevel };
        const model = newRunModel(m);
        try {
          await fc.asyncModelRun(() => ({ model, real: ctx }), cmds);
          // The state the sequence left, always checked once at the end.
          await new ListCommand().run(model, ctx);
          if (model.bindings) for (const schema of [...model.bindings.bound.keys()]) await listBindings(model, ctx, schema);
        } catch (e) {
          if (e instanceof PropertyAbort) def.aborted = e;
          if (e instanceof PropertyViolation) e.names = `${f.scopeParam ? `$TENANT = ${tenant}, ` : ''}$PREFIX = ${scope.prefix}`;
          throw e;
        } finally {
          await cleanup(model, ctx);
        }
      });
    },

    describe(value: unknown): string[] {
      const wrappers = (value as { commands?: { cmd: unknown; hasRan: boolean }[] }).commands;
      const lines = Array.isArray(wrappers) ? wrappers.filter((w) => w.hasRan).map((w) => String(w.cmd)) : [String(value)];
      return [...lines, '(then the final list of the run)'];
    },
  };
  return def;
}
