import { flag, need, oneOf, text, u64 } from './rules.ts';
import { contains, exact, GENERAL, localTime, seconds, str, type FamilyDef } from './family.ts';

/** Who may do what: users, ACL rules (Users and ACL) and blacklist entries (shapes from the reference notes). */

export const users: FamilyDef = {
  key: 'user',
  paths: { create: '/api/cluster/user/create', delete: '/api/cluster/user/delete', list: '/api/cluster/user/list' },
  create: { tenant: need(text(1, 64)), username: need(text(1, 64)), password: need(text(1, 128)), is_superuser: need(flag) },
  remove: { tenant: need(text(1, 64)), username: need(text(1, 64)) },
  identity: ['tenant', 'username'],
  onDuplicate: 'refuse',
  // The password is kept nowhere: nothing of this server reads it back.
  record: (b, c) => ({ tenant: b.tenant, username: b.username, is_superuser: b.is_superuser, create_time: seconds(c) }),
  list: {
    defaultLimit: GENERAL,
    fields: ['tenant', 'username', 'is_superuser', 'create_time'],
    sortFields: ['username'],
    filters: { tenant: exact('tenant'), user_name: contains('username') },
  },
};

export const acl: FamilyDef = {
  key: 'acl',
  paths: { create: '/api/cluster/acl/create', delete: '/api/cluster/acl/delete', list: '/api/cluster/acl/list' },
  create: {
    tenant: need(text(1, 64)),
    name: need(text(1, 128)),
    desc: text(0, 256),
    resource_type: need(oneOf('ClientId', 'User', 'Ip')),
    resource_name: need(text(1, 256)),
    topic: text(0, 256),
    ip: text(0, 128),
    action: need(oneOf('Publish', 'Subscribe', 'All')),
    permission: need(oneOf('Allow', 'Deny')),
  },
  remove: { tenant: need(text(1, 64)), name: need(text(1, 128)) },
  identity: ['tenant', 'name'],
  onDuplicate: 'upsert',
  record: (b) => ({
    tenant: b.tenant,
    name: b.name,
    desc: str(b.desc),
    resource_type: b.resource_type,
    resource_name: b.resource_name,
    topic: str(b.topic),
    ip: str(b.ip),
    action: b.action,
    permission: b.permission,
  }),
  list: {
    defaultLimit: GENERAL,
    fields: ['tenant', 'name', 'desc', 'resource_type', 'resource_name', 'topic', 'ip', 'action', 'permission'],
    sortFields: ['name'],
    filters: { tenant: contains('tenant'), name: contains('name'), resource_name: contains('resource_name') },
  },
};

export const blacklist: FamilyDef = {
  key: 'blacklist',
  paths: { create: '/api/cluster/blacklist/create', delete: '/api/cluster/blacklist/delete', list: '/api/cluster/blacklist/list' },
  create: {
    name: need(text(1, 128)),
    tenant: need(text(1, 64)),
    blacklist_type: need(oneOf('ClientId', 'User', 'Ip', 'ClientIdMatch', 'UserMatch', 'IPCIDR')),
    resource_name: need(text(1, 256)),
    end_time: need(u64(1)),
    desc: text(0, 500),
  },
  remove: { tenant: need(text(1, 64)), name: need(text(1, 128)) },
  identity: ['tenant', 'name'],
  onDuplicate: 'upsert',
  record: (b) => ({
    name: b.name,
    tenant: b.tenant,
    blacklist_type: b.blacklist_type,
    resource_name: b.resource_name,
    end_time: localTime(Number(b.end_time) * 1000),
    desc: str(b.desc),
  }),
  list: {
    defaultLimit: GENERAL,
    fields: ['name', 'tenant', 'blacklist_type', 'resource_name', 'end_time', 'desc'],
    sortFields: ['name', 'tenant', 'blacklist_type', 'resource_name'],
    filters: { tenant: contains('tenant'), name: contains('name'), resource_name: contains('resource_name') },
  },
};
