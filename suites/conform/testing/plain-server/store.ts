import { failed, ok, type Answer } from './answers.ts';
import { FAMILIES, TENANT_RULES, quota, type Clock, type FamilyDef } from './families.ts';
import { pageOf, readQuery, type ListDef, type Params, type QueryChoices, type Row } from './list-query.ts';
import { need, text, validate, type Body } from './rules.ts';

/**
 * The records of every family in plain arrays, in the order they were created; each list is computed
 * from them on every request (list-query.ts). Bindings of schemas to resources are a plain array too.
 */

export interface StoreChoices extends QueryChoices {
  /** The order of a list without sort_field (the spec gives none). */
  baseOrder: 'newest-first' | 'oldest-first';
}

interface Entry {
  key: string;
  row: Row;
}

interface Binding {
  tenant: string;
  schema_name: string;
  resource_name: string;
}

const BINDING_RULES = { tenant: need(text(1, 128)), schema_name: need(text(1, 128)), resource_name: need(text(1, 256)) };
const BINDING_LIST: ListDef = { defaultLimit: 10_000, fields: ['data_type'], sortFields: [], filters: {} };

const schemaFamily = FAMILIES.find((f) => f.key === 'schema')!;
const tenantFamily = FAMILIES.find((f) => f.key === 'tenant')!;

export class PlainStore {
  private readonly entries = new Map<FamilyDef, Entry[]>(FAMILIES.map((f) => [f, []]));
  private bindings: Binding[] = [];
  /** Acknowledged writes, shown as the log index of the status's Raft state. */
  writes = 0;

  constructor(
    private readonly choices: StoreChoices,
    private readonly clock: Clock,
  ) {}

  private keyOf(f: FamilyDef, body: Body): string {
    return JSON.stringify(f.identity.map((k) => body[k]));
  }

  private named(f: FamilyDef, body: Body): string {
    return f.identity.map((k) => String(body[k])).join('/');
  }

  create(f: FamilyDef, raw: Body): Answer {
    const body = validate(raw, f.create);
    const row = f.record(body, this.clock);
    const list = this.entries.get(f)!;
    const key = this.keyOf(f, body);
    const at = list.findIndex((e) => e.key === key);
    if (at !== -1 && f.onDuplicate === 'refuse') return failed(`${f.key} ${this.named(f, body)} already exists`);
    if (at !== -1) list[at] = { key, row };
    else list.push({ key, row });
    this.writes++;
    return ok(f.answersRecord ? row : 'success');
  }

  /** Deleting what does not exist succeeds: the state asked for holds. */
  remove(f: FamilyDef, raw: Body): Answer {
    const body = validate(raw, f.remove);
    const key = this.keyOf(f, body);
    const list = this.entries.get(f)!;
    this.entries.set(
      f,
      list.filter((e) => e.key !== key),
    );
    if (f === schemaFamily) this.bindings = this.bindings.filter((b) => b.tenant !== body.tenant || b.schema_name !== body.schema_name);
    this.writes++;
    return ok();
  }

  /** Tenant update: `desc` left out clears it, `config` left out keeps the quota, a given one replaces it (defaults for the rest). */
  updateTenant(raw: Body): Answer {
    const body = validate(raw, TENANT_RULES);
    const entry = this.entries.get(tenantFamily)!.find((e) => e.key === this.keyOf(tenantFamily, body));
    if (!entry) return failed(`Tenant ${String(body.tenant_name)} not found`);
    entry.row = { ...entry.row, desc: body.desc ?? '', ...(body.config ? { config: quota(body.config) } : {}) };
    this.writes++;
    return ok();
  }

  private inBaseOrder<T>(items: readonly T[]): T[] {
    return this.choices.baseOrder === 'newest-first' ? [...items].reverse() : [...items];
  }

  list(f: FamilyDef, params: Params): Answer {
    const query = readQuery(params, f.list, this.choices);
    const rows = this.inBaseOrder(this.entries.get(f)!).map((e) => e.row);
    return ok(pageOf(rows, query, f.list));
  }

  bind(raw: Body): Answer {
    const b = bindingOf(validate(raw, BINDING_RULES));
    const schemas = this.entries.get(schemaFamily)!;
    if (!schemas.some((e) => e.key === this.keyOf(schemaFamily, { ...b })))
      return failed(`schema ${b.schema_name} does not exist in tenant ${b.tenant}`);
    if (!this.bindings.some((x) => same(x, b))) this.bindings.push(b);
    this.writes++;
    return ok();
  }

  unbind(raw: Body): Answer {
    const b = bindingOf(validate(raw, BINDING_RULES));
    this.bindings = this.bindings.filter((x) => !same(x, b));
    this.writes++;
    return ok();
  }

  /**
   * The reference server's rows: with `resource_name`, `{data_type: "resource", data: [schemas bound
   * to it]}`; with `schema_name`, `{data_type: "schema", data: [resources bound to it]}`; with
   * neither, no row. `tenant` narrows to one tenant.
   */
  listBindings(params: Params): Answer {
    const q = validate(params, { tenant: text(), resource_name: text(), schema_name: text() });
    const query = readQuery(params, BINDING_LIST, this.choices);
    const bound = this.inBaseOrder(this.bindings).filter((b) => q.tenant === undefined || b.tenant === q.tenant);
    const rows: Row[] = [];
    if (q.resource_name !== undefined)
      rows.push({ data_type: 'resource', data: bound.filter((b) => b.resource_name === q.resource_name).map((b) => b.schema_name) });
    if (q.schema_name !== undefined)
      rows.push({ data_type: 'schema', data: bound.filter((b) => b.schema_name === q.schema_name).map((b) => b.resource_name) });
    return ok(pageOf(rows, query, BINDING_LIST));
  }
}

const bindingOf = (b: Body): Binding => ({
  tenant: String(b.tenant),
  schema_name: String(b.schema_name),
  resource_name: String(b.resource_name),
});
const same = (a: Binding, b: Binding) => a.tenant === b.tenant && a.schema_name === b.schema_name && a.resource_name === b.resource_name;
