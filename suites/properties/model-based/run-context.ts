import type { Level } from '../../conform/report-model.ts';
import type { Scope } from '../arbitraries/symbols.ts';
import type { PropertyClient } from '../core/property-client.ts';
import { BindingModel } from '../reference-model/binding-model.ts';
import { FamilyModel, type Ident } from '../reference-model/family-model.ts';
import type { ResourceFamilyContract } from '../../../contract/core/types.ts';
import type { BindingFamily, FamilyEndpoints, ModelledFamily } from '../reference-model/families.ts';

/** The target side of one model run: the client, the run's names, and the rule threshold. */
export interface RunContext {
  client: PropertyClient;
  family: ResourceFamilyContract;
  endpoints: FamilyEndpoints;
  /** The binding family that rides with this one (schema bindings), if any. */
  binding?: BindingFamily;
  scope: Scope;
  /** Violations below this level do not stop the run (the MUST-only re-run after a weaker failure). */
  minLevel: Level;
}

/** The model side of one run: the family's instances, and schema bindings for the schemas family. */
export interface RunModel {
  family: FamilyModel;
  bindings?: BindingModel;
}

export function newRunModel(modelled: ModelledFamily): RunModel {
  const m = new FamilyModel(modelled.family, modelled.endpoints);
  return modelled.binding ? { family: m, bindings: new BindingModel(m) } : { family: m };
}

/** Page size asked for in the run's lists, so one page holds the run's whole scope. */
export const LIST_LIMIT = 10_000;

/** Is an instance one of the run's (its tenant, its name prefix)? */
export function inScope(ctx: RunContext, ident: Ident): boolean {
  const f = ctx.family;
  if (f.scopeParam && ident[f.scopeParam] !== ctx.scope.tenant) return false;
  return ident[f.nameParam]?.startsWith(ctx.scope.prefix) ?? false;
}
