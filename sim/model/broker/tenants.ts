import { failed } from '../errors/operation-error.ts';
import type { IndexedList } from '../api/indexed-list.ts';
import { RecordIndex, type IndexEntry } from '../api/record-index.ts';
import { unixSeconds } from '../api/time-format.ts';
import type { TenantQuotaRecord, TenantRecord } from '../../../contract/records.ts';
import type { SimEngine } from '../engine/sim-engine.ts';

/** A tenant's quota, as the contract's tenant record shows it. */
export type TenantQuota = TenantQuotaRecord;

/** The spec's quota defaults (Resources: Tenant). */
const DEFAULT_TENANT_QUOTA: Readonly<TenantQuota> = Object.freeze({
  max_connections_per_node: 10_000_000,
  max_create_connection_rate_per_second: 10_000,
  max_topics: 5_000_000,
  max_sessions: 50_000_000,
  max_publish_rate: 10_000,
});

/** The tenant every broker has from the start. */
const DEFAULT_TENANT = 'default';

export interface Tenant {
  tenant_name: string;
  desc: string;
  config: TenantQuota;
  /** Virtual Unix ms. */
  createdAt: number;
}

/** Tenants and their quotas. The `default` tenant exists from the start and cannot be deleted. */
export class Tenants {
  /** By name ascending (the list's base order); pages are read from its sorted indexes. */
  private readonly byName = new RecordIndex<Tenant>({
    order: (a, b) => (a.tenant_name < b.tenant_name ? -1 : a.tenant_name > b.tenant_name ? 1 : 0),
    viewFields: { create_time: (t) => unixSeconds(t.createdAt) },
    viewsOfRecordsOnly: true,
  });

  constructor(private readonly engine: Pick<SimEngine, 'now' | 'record'>) {}

  start(): void {
    this.insert(DEFAULT_TENANT, 'Default tenant', {});
  }

  seedDemo(): void {
    this.create({ tenant_name: 'acme', desc: 'Acme Corp production fleet', config: { max_topics: 100_000 } });
    this.create({ tenant_name: 'globex', desc: 'Globex sensors', config: { max_connections_per_node: 50_000, max_publish_rate: 2_000 } });
    this.create({ tenant_name: 'initech', desc: 'Initech staging' });
  }

  private insert(name: string, desc: string, quota: Partial<TenantQuota>): Tenant {
    const tenant: Tenant = { tenant_name: name, desc, config: { ...DEFAULT_TENANT_QUOTA, ...quota }, createdAt: this.engine.now() };
    this.byName.set(name, tenant);
    this.engine.record('tenant.create', { name, desc, config: tenant.config });
    return tenant;
  }

  create(input: { tenant_name: string; desc?: string; config?: Partial<TenantQuota> }): Tenant {
    if (this.byName.has(input.tenant_name)) throw failed(`Tenant ${input.tenant_name} already exists`);
    return this.insert(input.tenant_name, input.desc ?? '', input.config ?? {});
  }

  update(input: { tenant_name: string; desc?: string; config?: Partial<TenantQuota> }): Tenant {
    const tenant = this.byName.get(input.tenant_name);
    if (!tenant) throw failed(`Tenant ${input.tenant_name} not found`);
    this.byName.modify(input.tenant_name, (t) => {
      if (input.desc !== undefined) t.desc = input.desc;
      if (input.config) t.config = { ...t.config, ...input.config };
    });
    this.engine.record('tenant.update', { name: tenant.tenant_name, desc: tenant.desc, config: tenant.config });
    return tenant;
  }

  delete(name: string): void {
    if (name === DEFAULT_TENANT)
      throw failed(`Tenant ${DEFAULT_TENANT} cannot be deleted: the broker places clients without a tenant there`);
    if (!this.byName.delete(name)) throw failed(`Tenant ${name} not found`);
    this.engine.record('tenant.delete', { name });
  }

  get(name: string): Tenant | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Quota of a tenant; an unknown tenant gets the defaults (clients may name tenants not created yet). */
  quota(name: string): TenantQuota {
    return this.byName.get(name)?.config ?? { ...DEFAULT_TENANT_QUOTA };
  }

  /** All tenants, by name ascending. */
  all(): Tenant[] {
    return this.byName.values();
  }

  /** The tenant list, served from the sorted indexes. */
  listing(): IndexedList<IndexEntry<Tenant>, TenantRecord> {
    return this.byName.listing((t) => this.view(t));
  }

  names(): string[] {
    return this.all().map((t) => t.tenant_name);
  }

  view(t: Tenant): TenantRecord {
    return { tenant_name: t.tenant_name, desc: t.desc, config: { ...t.config }, create_time: unixSeconds(t.createdAt) };
  }
}
