import type { EndpointContract, ParamSpec } from '../../fixtures/contract/types.ts';
import { A } from './cite.ts';
import { type ConformContext, succeeded } from './conform-context.ts';
import type { Exchange } from './exchange.ts';
import { buildParams, textOfLength } from './param-values.ts';

/**
 * What the run knows about each kind of resource it creates: the create and delete paths, the fields
 * of a valid instance, how to write a valid value of a given length for the limit checks, and which
 * fields identify an instance in its list. Field names are merged with the contract by name, so a
 * field the contract does not declare is simply not sent.
 */
export interface ResourceFamily {
  key: string;
  createPath: string;
  deletePath: string;
  /** List whose records show created instances. */
  listPath?: string;
  /**
   * The assertion that a write acknowledged with success is applied (what the spec says the service
   * manages): cited by the checks that read a write back from the list.
   */
  manages: string;
  /**
   * The assertion of the delete endpoint's paragraph ("**POST …/delete**. Body: …"), which a delete
   * that takes the instance out of its list also decides.
   */
  deleteBody?: string;
  /** Fields of a valid instance; `suffix` makes instances distinct ('' = the run's fixture). */
  fields(ctx: ConformContext, suffix: string): Record<string, unknown>;
  /** Record fields that identify an instance in the list (checked when the record schema has them). */
  identity?: (fields: Record<string, unknown>) => Record<string, unknown>;
  /**
   * A valid value of exactly `length` characters for a length-limited parameter, or undefined when no
   * value of that length can be valid (then the in-range case is skipped with the reason).
   */
  textOfLength?(param: ParamSpec, length: number, ctx: ConformContext): string | undefined;
  /** Families that must exist first (their fixtures). */
  dependsOn?: string[];
  /**
   * Companion fields a valid instance needs when `param` takes `value` (e.g. a protobuf schema text
   * for schema_type protobuf), for the enum and range checks.
   */
  valueFields?(param: string, value: unknown, ctx: ConformContext, suffix: string): Record<string, unknown>;
  /** Fields the list shows in another form than the create takes (left out of the value round trip). */
  listForm?: readonly string[];
}

/** Far-future ban end (2100-01-01), fixed so requests do not depend on the clock. */
const FAR_FUTURE_SECONDS = 4_102_444_800;
const DESC = 'created by mqsim conform; safe to delete';

/** A fill value valid for plain names, texts and topic names; undefined for references and empty non-descriptions. */
function plainText(stem: string, referenceParams: readonly string[] = []) {
  return (param: ParamSpec, length: number): string | undefined => {
    if (referenceParams.includes(param.name)) return undefined;
    if (length === 0 && param.name !== 'desc') return undefined;
    return textOfLength(`${stem}${param.name.replace(/_/g, '')}`, length);
  };
}

const tenantRef = ['tenant'];

export const RESOURCE_FAMILIES: readonly ResourceFamily[] = [
  {
    key: 'tenant',
    manages: A.manageResources,
    createPath: '/api/cluster/tenant/create',
    deletePath: '/api/cluster/tenant/delete',
    listPath: '/api/cluster/tenant/list',
    fields: (ctx, s) => ({ tenant_name: `${ctx.names.tenant}${s}`, desc: DESC }),
    identity: (f) => ({ tenant_name: f.tenant_name }),
    textOfLength: (p, n, ctx) => plainText(`c${ctx.seed}`)(p, n),
  },
  {
    key: 'user',
    manages: A.manageResources,
    createPath: '/api/cluster/user/create',
    deletePath: '/api/cluster/user/delete',
    listPath: '/api/cluster/user/list',
    dependsOn: ['tenant'],
    fields: (ctx, s) => ({ tenant: ctx.names.tenant, username: `conform-user${s}`, password: 'Conform-Passw0rd', is_superuser: false }),
    identity: (f) => ({ tenant: f.tenant, username: f.username }),
    textOfLength: (p, n, ctx) => plainText(`u${ctx.seed}`, tenantRef)(p, n),
  },
  {
    key: 'acl',
    manages: A.manageResources,
    createPath: '/api/cluster/acl/create',
    deletePath: '/api/cluster/acl/delete',
    listPath: '/api/cluster/acl/list',
    dependsOn: ['tenant'],
    valueFields: (param, value) => (param === 'resource_type' && value === 'Ip' ? { resource_name: '192.0.2.18', ip: '192.0.2.18' } : {}),
    fields: (ctx, s) => ({
      tenant: ctx.names.tenant,
      name: `conform-acl${s}`,
      desc: DESC,
      resource_type: 'ClientId',
      resource_name: `conform-client-${ctx.seed}`,
      topic: 'conform/acl/#',
      action: 'Publish',
      permission: 'Deny',
    }),
    identity: (f) => ({ tenant: f.tenant, name: f.name }),
    // An address of 1 or 128 characters cannot be valid, so `ip` has no in-range case.
    textOfLength: (p, n, ctx) => plainText(`a${ctx.seed}`, [...tenantRef, 'ip'])(p, n),
  },
  {
    key: 'blacklist',
    manages: A.manageResources,
    createPath: '/api/cluster/blacklist/create',
    deletePath: '/api/cluster/blacklist/delete',
    listPath: '/api/cluster/blacklist/list',
    dependsOn: ['tenant'],
    fields: (ctx, s) => ({
      tenant: ctx.names.tenant,
      name: `conform-bl${s}`,
      blacklist_type: 'ClientId',
      resource_name: `conform-banned-${ctx.seed}${s}`,
      end_time: FAR_FUTURE_SECONDS,
      desc: DESC,
    }),
    identity: (f) => ({ tenant: f.tenant, name: f.name }),
    textOfLength: (p, n, ctx) => plainText(`b${ctx.seed}`, tenantRef)(p, n),
    // Each type blocks a different kind of resource; give each a resource of its kind.
    valueFields: (param, value, ctx, s) => {
      if (param !== 'blacklist_type') return {};
      const byType: Record<string, string> = {
        ClientId: `conform-banned-${ctx.seed}${s}`,
        User: `conform-user-${ctx.seed}${s}`,
        Ip: '192.0.2.17',
        ClientIdMatch: `conform-banned-${ctx.seed}${s}*`,
        UserMatch: `conform-user-${ctx.seed}${s}*`,
        IPCIDR: '192.0.2.0/24',
      };
      return byType[String(value)] ? { resource_name: byType[String(value)] } : {};
    },
  },
  {
    key: 'topic-rewrite',
    manages: A.manageResources,
    createPath: '/api/cluster/topic-rewrite/create',
    deletePath: '/api/cluster/topic-rewrite/delete',
    listPath: '/api/cluster/topic-rewrite/list',
    dependsOn: ['tenant'],
    fields: (ctx, s) => ({
      tenant: ctx.names.tenant,
      name: `conform-rw${s}`,
      desc: DESC,
      action: 'All',
      source_topic: `conform/rw${s}/src`,
      dest_topic: `conform/rw${s}/dst`,
      regex: '^conform/rw/(.*)$',
    }),
    identity: (f) => ({ tenant: f.tenant, name: f.name }),
    textOfLength: (p, n, ctx) => plainText(`r${ctx.seed}`, tenantRef)(p, n),
  },
  {
    key: 'auto-subscribe',
    manages: A.manageResources,
    deleteBody: 'endpoints.auto-subscribe.delete',
    createPath: '/api/mqtt/auto-subscribe/create',
    deletePath: '/api/mqtt/auto-subscribe/delete',
    listPath: '/api/mqtt/auto-subscribe/list',
    dependsOn: ['tenant'],
    fields: (ctx, s) => ({
      tenant: ctx.names.tenant,
      name: `conform-as${s}`,
      desc: DESC,
      topic: `conform/as${s}/#`,
      qos: 0,
      no_local: false,
      retain_as_published: false,
      retained_handling: 0,
    }),
    identity: (f) => ({ tenant: f.tenant, name: f.name }),
    textOfLength: (p, n, ctx) => plainText(`s${ctx.seed}`, tenantRef)(p, n),
  },
  {
    key: 'schema',
    manages: A.manageResources,
    createPath: '/api/cluster/schema/create',
    deletePath: '/api/cluster/schema/delete',
    listPath: '/api/cluster/schema/list',
    dependsOn: ['tenant'],
    fields: (ctx, s) => ({
      tenant: ctx.names.tenant,
      schema_name: `conform-schema${s}`,
      schema_type: 'json',
      schema: '{"type":"object"}',
      desc: DESC,
    }),
    identity: (f) => ({ tenant: f.tenant, name: f.schema_name }),
    // The schema text must be of the schema's language.
    valueFields: (param, value) => {
      if (param !== 'schema_type') return {};
      if (value === 'protobuf') return { schema: 'syntax = "proto3"; message ConformRecord { string id = 1; }' };
      if (value === 'avro') return { schema: '{"type":"record","name":"ConformRecord","fields":[{"name":"id","type":"string"}]}' };
      return { schema: '{"type":"object"}' };
    },
    textOfLength: (p, n, ctx) => {
      if (p.name === 'schema') {
        // A JSON Schema text padded to the exact length through its description.
        const head = '{"type":"object","description":"';
        const tail = '"}';
        return n < head.length + tail.length ? undefined : `${head}${'x'.repeat(n - head.length - tail.length)}${tail}`;
      }
      return plainText(`m${ctx.seed}`, tenantRef)(p, n);
    },
  },
  {
    key: 'schema-bind',
    manages: A.manageResources,
    createPath: '/api/cluster/schema-bind/create',
    deletePath: '/api/cluster/schema-bind/delete',
    dependsOn: ['schema'],
    fields: (ctx, s) => ({ tenant: ctx.names.tenant, schema_name: 'conform-schema', resource_name: `conform/${ctx.seed}/bound${s}` }),
    textOfLength: (p, n, ctx) => plainText(`k${ctx.seed}`, [...tenantRef, 'schema_name'])(p, n),
  },
  {
    key: 'connector',
    manages: A.manageConnectors,
    deleteBody: 'endpoints.connector.delete',
    createPath: '/api/cluster/connector/create',
    deletePath: '/api/cluster/connector/delete',
    listPath: '/api/cluster/connector/list',
    dependsOn: ['tenant'],
    fields: (ctx, s) => ({
      tenant: ctx.names.tenant,
      connector_name: `conform-conn-${ctx.seed}${s}`,
      connector_type: 'file',
      config: JSON.stringify({ local_file_path: `/tmp/mqsim-conform-${ctx.seed}.log` }),
      topic_name: `conform/${ctx.seed}/conn${s}/#`,
      failure_strategy: { strategy: 'discard' },
    }),
    identity: (f) => ({ tenant: f.tenant, connector_name: f.connector_name }),
    // The list shows the config normalised (defaults added): compared by connector.type.*.config-defaults.
    listForm: ['config'],
    textOfLength: (p, n, ctx) => {
      if (p.name === 'config') {
        // A valid `file` config padded to the exact length through the file name.
        const head = `{"local_file_path":"/tmp/mqsim-conform-${ctx.seed}-`;
        const tail = '.log"}';
        return n < head.length + tail.length ? undefined : `${head}${'x'.repeat(n - head.length - tail.length)}${tail}`;
      }
      // Type ids are a closed set: no other length can be valid.
      if (p.name === 'connector_type') return undefined;
      return plainText(`n${ctx.seed}`, tenantRef)(p, n);
    },
  },
  {
    key: 'topic',
    manages: A.manageTopics,
    createPath: '/api/cluster/topic/create',
    deletePath: '/api/cluster/topic/delete',
    listPath: '/api/cluster/topic/list',
    dependsOn: ['tenant'],
    fields: (ctx, s) => ({ tenant: ctx.names.tenant, topic_name: `${ctx.names.topic}${s}` }),
    identity: (f) => ({ tenant: f.tenant, topic_name: f.topic_name }),
    textOfLength: (p, n, ctx) => plainText(`t${ctx.seed}`, tenantRef)(p, n),
  },
  {
    key: 'shard',
    manages: A.manageShards,
    createPath: '/api/storage-engine/shard/create',
    deletePath: '/api/storage-engine/shard/delete',
    fields: (ctx, s) => ({
      shard_name: `conform-shard-${ctx.seed}${s}`,
      tenant: ctx.names.tenant,
      desc: DESC,
      // The real server's EngineShardConfig: one replica, so any cluster size can hold it.
      config: JSON.stringify({ replica_num: 1, storage_type: 'EngineSegment', retention_sec: 86_400 }),
    }),
    textOfLength: (p, n, ctx) => (p.name === 'config' ? undefined : plainText(`h${ctx.seed}`, tenantRef)(p, n)),
  },
];

export function familyByCreatePath(path: string): ResourceFamily | undefined {
  return RESOURCE_FAMILIES.find((f) => f.createPath === path);
}

export function familyByDeletePath(path: string): ResourceFamily | undefined {
  return RESOURCE_FAMILIES.find((f) => f.deletePath === path);
}

/** One resource the run created and has not deleted yet. */
interface Created {
  family: ResourceFamily;
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

  constructor(private readonly ctx: ConformContext) {}

  createEndpoint(f: ResourceFamily): EndpointContract | undefined {
    return this.ctx.endpoint('POST', f.createPath);
  }

  deleteEndpoint(f: ResourceFamily): EndpointContract | undefined {
    return this.ctx.endpoint('POST', f.deletePath);
  }

  /** Sends a create; tracks the instance when it succeeded. */
  async create(
    f: ResourceFamily,
    fields: Record<string, unknown>,
    purpose: 'check' | 'fixture' = 'check',
    extraBody: Record<string, unknown> = {},
  ): Promise<Exchange | undefined> {
    const e = this.createEndpoint(f);
    if (!e) return undefined;
    const params = { ...buildParams(e, fields), ...extraBody };
    const ex = await this.ctx.call(e, params, purpose);
    if (succeeded(ex)) this.created.push({ family: f, fields: buildParams(e, fields) });
    return ex;
  }

  /** The delete request for an instance: the delete endpoint's parameters taken from its fields. */
  deleteParams(f: ResourceFamily, fields: Record<string, unknown>): Record<string, unknown> | undefined {
    const e = this.deleteEndpoint(f);
    return e ? buildParams(e, fields) : undefined;
  }

  /** Sends a delete; forgets the instance when it succeeded. */
  async delete(
    f: ResourceFamily,
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

  isTracked(f: ResourceFamily, fields: Record<string, unknown>): boolean {
    const key = this.deleteParams(f, fields);
    return this.created.some((c) => c.family === f && sameKey(this.deleteParams(f, c.fields), key));
  }

  private forget(f: ResourceFamily, deleteParams: Record<string, unknown>): void {
    const i = this.created.findIndex((c) => c.family === f && sameKey(this.deleteParams(f, c.fields), deleteParams));
    if (i !== -1) this.created.splice(i, 1);
  }

  /** Deletes everything still tracked, newest first (bindings before schemas, users before tenants). */
  async cleanup(): Promise<string[]> {
    const problems: string[] = [];
    for (const c of [...this.created].reverse()) {
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
