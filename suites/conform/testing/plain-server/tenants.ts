import type { Row } from './list-query.ts';
import { need, text, u32, u64, type Rules } from './rules.ts';
import { contains, seconds, str, type FamilyDef } from './family.ts';

/** Tenants (Resources: Tenant; Endpoints: Tenants). */

const QUOTA: Rules = {
  max_connections_per_node: u64(),
  max_create_connection_rate_per_second: u32(),
  max_topics: u64(),
  max_sessions: u64(),
  max_publish_rate: u32(),
};
const QUOTA_DEFAULTS = {
  max_connections_per_node: 10_000_000,
  max_create_connection_rate_per_second: 10_000,
  max_topics: 5_000_000,
  max_sessions: 50_000_000,
  max_publish_rate: 10_000,
};
/** A quota given in part: the spec's defaults for the fields left out. */
export const quota = (given: unknown): Row => ({ ...QUOTA_DEFAULTS, ...((given as Row | undefined) ?? {}) });

export const TENANT_RULES: Rules = { tenant_name: need(text(1, 128)), desc: text(0, 500), config: { type: 'object', fields: QUOTA } };

export const tenants: FamilyDef = {
  key: 'tenant',
  paths: {
    create: '/api/cluster/tenant/create',
    update: '/api/cluster/tenant/update',
    delete: '/api/cluster/tenant/delete',
    list: '/api/cluster/tenant/list',
  },
  create: TENANT_RULES,
  remove: { tenant_name: need(text(1, 128)) },
  identity: ['tenant_name'],
  onDuplicate: 'refuse',
  record: (b, c) => ({ tenant_name: b.tenant_name, desc: str(b.desc), config: quota(b.config), create_time: seconds(c) }),
  list: {
    defaultLimit: 100,
    fields: ['tenant_name', 'desc', 'create_time'],
    sortFields: ['tenant_name'],
    filters: { tenant_name: contains('tenant_name') },
  },
};
