import type { ListVersion } from '../api/indexed-list.ts';
import { failed, invalidParam } from '../errors/operation-error.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { IndexedList } from '../api/indexed-list.ts';
import type { IndexEntry } from '../api/record-index.ts';
import { TenantScopedStore } from './tenant-scoped-store.ts';

type SchemaType = 'json' | 'avro' | 'protobuf';

export interface Schema {
  tenant: string;
  name: string;
  schema_type: SchemaType;
  schema: string;
  desc: string;
}

export interface SchemaBinding {
  tenant: string;
  schema_name: string;
  resource_name: string;
}

/** A schema text must be usable by its type before it is stored. */
function checkSchemaText(type: SchemaType, text: string): void {
  if (type === 'protobuf') {
    if (!/\bmessage\s+[A-Za-z_]\w*\s*\{/.test(text))
      throw invalidParam('schema', "invalid parameter 'schema': a protobuf schema must define at least one `message Name { ... }`");
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw invalidParam('schema', `invalid parameter 'schema': a ${type} schema must be JSON text (${(e as Error).message})`);
  }
  if (type === 'json' && (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))) {
    throw invalidParam('schema', "invalid parameter 'schema': a json schema must be a JSON Schema object");
  }
  if (
    type === 'avro' &&
    !(typeof parsed === 'string' || Array.isArray(parsed) || (typeof parsed === 'object' && parsed !== null && 'type' in parsed))
  ) {
    throw invalidParam('schema', "invalid parameter 'schema': an avro schema must be a type name, a union array or an object with `type`");
  }
}

/** Message schemas per tenant and their bindings to topics (resources). */
export class Schemas {
  private readonly schemas = new TenantScopedStore<Schema>();
  private bindings: SchemaBinding[] = [];
  /** Binds and unbinds so far: the bindings' list version. */
  private bindingWrites = 0;

  constructor(private readonly engine: Pick<SimEngine, 'record'>) {}

  seedDemo(): void {
    this.create({
      tenant: 'acme',
      name: 'temperature-reading',
      schema_type: 'json',
      schema: JSON.stringify({
        type: 'object',
        required: ['celsius'],
        properties: { celsius: { type: 'number' }, sensor: { type: 'string' } },
      }),
      desc: 'one temperature sample',
    });
    this.bind('acme', 'temperature-reading', 'sensors/+/temperature');
  }

  create(s: Schema): void {
    checkSchemaText(s.schema_type, s.schema);
    if (this.schemas.has(s.tenant, s.name)) throw failed(`Schema ${s.name} already exists in tenant ${s.tenant}`);
    this.schemas.set(s.tenant, s.name, { ...s });
    this.engine.record('schema.create', { tenant: s.tenant, name: s.name, type: s.schema_type });
  }

  /** Refuses while bindings exist, so no topic silently loses its schema. */
  delete(tenant: string, name: string): void {
    if (!this.schemas.has(tenant, name)) throw failed(`Schema ${name} does not exist in tenant ${tenant}`);
    const bound = this.bindings.filter((b) => b.tenant === tenant && b.schema_name === name);
    if (bound.length > 0) {
      throw failed(
        `Schema ${name} is bound to ${bound.length} resource(s) (${bound.map((b) => b.resource_name).join(', ')}); delete the bindings first`,
      );
    }
    this.schemas.delete(tenant, name);
    this.engine.record('schema.delete', { tenant, name });
  }

  bind(tenant: string, schemaName: string, resourceName: string): void {
    if (!this.schemas.has(tenant, schemaName)) throw failed(`Schema ${schemaName} does not exist in tenant ${tenant}`);
    if (this.bindings.some((b) => b.tenant === tenant && b.schema_name === schemaName && b.resource_name === resourceName)) return;
    this.bindings.push({ tenant, schema_name: schemaName, resource_name: resourceName });
    this.bindingWrites++;
    this.engine.record('schema.bind', { tenant, schemaName, resourceName });
  }

  unbind(tenant: string, schemaName: string, resourceName: string): void {
    const before = this.bindings.length;
    this.bindings = this.bindings.filter((b) => !(b.tenant === tenant && b.schema_name === schemaName && b.resource_name === resourceName));
    if (this.bindings.length === before) throw failed(`Schema ${schemaName} is not bound to ${resourceName} in tenant ${tenant}`);
    this.bindingWrites++;
    this.engine.record('schema.unbind', { tenant, schemaName, resourceName });
  }

  all(): Schema[] {
    return this.schemas.all();
  }

  /** The schema list, served from the store's sorted indexes. */
  listing(): IndexedList<IndexEntry<Schema>, Schema> {
    return this.schemas.listing((s) => ({ tenant: s.tenant, name: s.name, schema_type: s.schema_type, desc: s.desc, schema: s.schema }));
  }

  get(tenant: string, name: string): Schema | undefined {
    return this.schemas.get(tenant, name);
  }

  allBindings(): SchemaBinding[] {
    return this.bindings.slice();
  }

  /** The bindings change only through bind and unbind: this version moves with each. */
  bindingsVersion(): ListVersion {
    return { owner: this, version: this.bindingWrites };
  }
}
