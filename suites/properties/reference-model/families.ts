import { TENANT_QUOTA_FIELDS } from '../../../fixtures/contract/endpoints/tenants.ts';

/**
 * The eight resource families the reference model covers, as the spec describes them (Resources and
 * Endpoints sections; blacklist and schemas are "given only by method and path", so their rules are
 * the reference notes' and checked at INFO). Each family says which create parameters identify an
 * instance, where the list shows it, and which create parameters the list must echo.
 */

export type FamilyKey = 'tenants' | 'users' | 'acl' | 'topic-rewrite' | 'auto-subscribe' | 'connectors' | 'blacklist' | 'schemas';

export const FAMILY_KEYS: readonly FamilyKey[] = [
  'tenants',
  'users',
  'acl',
  'topic-rewrite',
  'auto-subscribe',
  'connectors',
  'blacklist',
  'schemas',
];

/** How a create parameter shows in a list record. */
export interface ShownField {
  param: string;
  /** Record field (default: the parameter name). */
  field?: string;
  /**
   * `exact` (default): equal; `lowercase`: equal ignoring case (connector types are matched
   * case-insensitively); `quota`: the tenant quota object, with the spec's defaults for omitted fields.
   */
  compare?: 'exact' | 'lowercase' | 'quota';
}

export interface FamilySpec {
  key: FamilyKey;
  createId: string;
  deleteId: string;
  listId: string;
  updateId?: string;
  /** Create/delete parameters that identify an instance, in key order. */
  identity: readonly string[];
  /** Parameter holding the tenant the instance lives in (absent for tenants themselves). */
  scopeParam?: string;
  /** Parameter holding the instance's own name. */
  nameParam: string;
  /** Record field of the name in list rows; `recordTenant` of the tenant. */
  recordName: string;
  recordTenant?: string;
  /** List query parameter selecting the tenant (exact or contains match, as the contract says). */
  listTenantParam?: string;
  /** List query parameter filtering on the name (contains match). */
  listNameParam?: string;
  shown: readonly ShownField[];
}

export const FAMILIES: Readonly<Record<FamilyKey, FamilySpec>> = {
  tenants: {
    key: 'tenants',
    createId: 'cluster.tenant.create',
    deleteId: 'cluster.tenant.delete',
    listId: 'cluster.tenant.list',
    updateId: 'cluster.tenant.update',
    identity: ['tenant_name'],
    nameParam: 'tenant_name',
    recordName: 'tenant_name',
    listNameParam: 'tenant_name',
    shown: [{ param: 'desc' }, { param: 'config', compare: 'quota' }],
  },
  users: {
    key: 'users',
    createId: 'cluster.user.create',
    deleteId: 'cluster.user.delete',
    listId: 'cluster.user.list',
    identity: ['tenant', 'username'],
    scopeParam: 'tenant',
    nameParam: 'username',
    recordName: 'username',
    recordTenant: 'tenant',
    listTenantParam: 'tenant',
    listNameParam: 'user_name',
    shown: [{ param: 'is_superuser' }],
  },
  acl: {
    key: 'acl',
    createId: 'cluster.acl.create',
    deleteId: 'cluster.acl.delete',
    listId: 'cluster.acl.list',
    identity: ['tenant', 'name'],
    scopeParam: 'tenant',
    nameParam: 'name',
    recordName: 'name',
    recordTenant: 'tenant',
    listTenantParam: 'tenant',
    listNameParam: 'name',
    shown: [
      { param: 'resource_type' },
      { param: 'resource_name' },
      { param: 'action' },
      { param: 'permission' },
      { param: 'desc' },
      { param: 'topic' },
      { param: 'ip' },
    ],
  },
  'topic-rewrite': {
    key: 'topic-rewrite',
    createId: 'cluster.topic-rewrite.create',
    deleteId: 'cluster.topic-rewrite.delete',
    listId: 'cluster.topic-rewrite.list',
    identity: ['tenant', 'name'],
    scopeParam: 'tenant',
    nameParam: 'name',
    recordName: 'name',
    recordTenant: 'tenant',
    listTenantParam: 'tenant',
    listNameParam: 'name',
    shown: [{ param: 'action' }, { param: 'source_topic' }, { param: 'dest_topic' }, { param: 'regex' }, { param: 'desc' }],
  },
  'auto-subscribe': {
    key: 'auto-subscribe',
    createId: 'mqtt.auto-subscribe.create',
    deleteId: 'mqtt.auto-subscribe.delete',
    listId: 'mqtt.auto-subscribe.list',
    identity: ['tenant', 'name'],
    scopeParam: 'tenant',
    nameParam: 'name',
    recordName: 'name',
    recordTenant: 'tenant',
    listTenantParam: 'tenant',
    listNameParam: 'name',
    // qos and retained_handling are numbers on create and text labels in the list (labels not given).
    shown: [{ param: 'topic' }, { param: 'no_local' }, { param: 'retain_as_published' }, { param: 'desc' }],
  },
  connectors: {
    key: 'connectors',
    createId: 'cluster.connector.create',
    deleteId: 'cluster.connector.delete',
    listId: 'cluster.connector.list',
    identity: ['tenant', 'connector_name'],
    scopeParam: 'tenant',
    nameParam: 'connector_name',
    recordName: 'connector_name',
    recordTenant: 'tenant',
    listTenantParam: 'tenant',
    listNameParam: 'connector_name',
    // `config` is type-specific text the server may normalise; status and broker change at run time.
    shown: [{ param: 'connector_type', compare: 'lowercase' }, { param: 'topic_name' }],
  },
  blacklist: {
    key: 'blacklist',
    createId: 'cluster.blacklist.create',
    deleteId: 'cluster.blacklist.delete',
    listId: 'cluster.blacklist.list',
    identity: ['tenant', 'name'],
    scopeParam: 'tenant',
    nameParam: 'name',
    recordName: 'name',
    recordTenant: 'tenant',
    listTenantParam: 'tenant',
    listNameParam: 'name',
    shown: [{ param: 'blacklist_type' }, { param: 'resource_name' }, { param: 'desc' }],
  },
  schemas: {
    key: 'schemas',
    createId: 'cluster.schema.create',
    deleteId: 'cluster.schema.delete',
    listId: 'cluster.schema.list',
    identity: ['tenant', 'schema_name'],
    scopeParam: 'tenant',
    nameParam: 'schema_name',
    recordName: 'name',
    recordTenant: 'tenant',
    listTenantParam: 'tenant',
    listNameParam: 'name',
    // The schema text itself may be stored normalised; its language and description may not.
    shown: [{ param: 'schema_type' }, { param: 'desc' }],
  },
};

/** Schema bindings ride with the schemas family. */
export const BINDING_ENDPOINTS = {
  create: 'cluster.schema-bind.create',
  delete: 'cluster.schema-bind.delete',
  list: 'cluster.schema-bind.list',
} as const;

/** The spec's tenant quota defaults (Resources: Tenant). */
export const QUOTA_DEFAULTS: Readonly<Record<string, number>> = Object.fromEntries(
  TENANT_QUOTA_FIELDS.map((f) => [f.name, f.default as number]),
);
