/**
 * Test support for the crash torture (crash-torture.ts): the eight writers. Each makes its writes one
 * after the other (so what a restart keeps of one writer must be a prefix of what it wrote), and
 * together they cover every writable family: tenants, users and ACL, blacklist and topic rewrite,
 * schemas and bindings, topics and messages, connectors and configs, mq9 mailboxes and agents and
 * auto-subscribe (control writes under /_sim/), and MQTT clients through the listener.
 */
import { ABSENT, compareFields, createStep, LOG_TOPIC, PRESENT, TENANT, type Step } from './crash-steps.ts';
import type { ServerApi } from './crash-http.ts';
import { mqttSteps, type MqttWriterState } from './crash-mqtt-steps.ts';

export interface WriterContext {
  api: ServerApi;
  /** MQTT port of node 1 of the current life of the server. */
  mqttPort: number;
  /** Directory for the files the file connectors name (nothing is written there: delivery is simulated). */
  dir: string;
}

/** A writer: its `i`-th write (0-based, never repeated, so a name is never created twice). */
export interface Writer {
  readonly name: string;
  /**
   * Steps that build on each other (a user, then an ACL rule naming it): a new life of the server
   * starts at the next multiple of `group`, since the rest of a group begun before a kill may lack
   * its first step.
   */
  readonly group: number;
  step(i: number, ctx: WriterContext): Step;
}

const T = `tenant=${TENANT}`;

const tenants: Writer = {
  name: 'tenants',
  group: 1,
  step: (i, { api }) =>
    createStep({
      label: `tenant create ct-t${i}`,
      api,
      node: 1,
      path: '/api/cluster/tenant/create',
      body: { tenant_name: `ct-t${i}`, desc: `tenant ${i}` },
      list: '/api/cluster/tenant/list?tenant_name=ct-t',
      key: ['tenant_name', `ct-t${i}`],
      expect: { desc: `tenant ${i}` },
    }),
};

const usersAndAcl: Writer = {
  name: 'users+acl',
  group: 2,
  step(i, { api }) {
    const n = i >> 1;
    if (i % 2 === 0) {
      return createStep({
        label: `user create cu${n}`,
        api,
        node: 2,
        path: '/api/cluster/user/create',
        body: { tenant: TENANT, username: `cu${n}`, password: `Pw-${n}`, is_superuser: n % 2 === 0 },
        list: `/api/cluster/user/list?${T}`,
        key: ['username', `cu${n}`],
        expect: { tenant: TENANT, is_superuser: n % 2 === 0 },
      });
    }
    const acl = { resource_type: 'User', resource_name: `cu${n}`, topic: `ct/acl/${n}/#`, action: 'Publish', permission: 'Deny' };
    return createStep({
      label: `acl create ca${n}`,
      api,
      node: 3,
      path: '/api/cluster/acl/create',
      body: { tenant: TENANT, name: `ca${n}`, desc: '', ip: '', ...acl },
      list: `/api/cluster/acl/list?${T}`,
      key: ['name', `ca${n}`],
      expect: acl,
    });
  },
};

const blacklistAndRewrite: Writer = {
  name: 'blacklist+rewrite',
  group: 1,
  step(i, { api }) {
    const n = i >> 1;
    if (i % 2 === 0) {
      return createStep({
        label: `blacklist create cb${n}`,
        api,
        node: 3,
        path: '/api/cluster/blacklist/create',
        body: {
          tenant: TENANT,
          name: `cb${n}`,
          blacklist_type: 'ClientId',
          resource_name: `evil-${n}`,
          end_time: 4102444800,
          desc: `b${n}`,
        },
        list: `/api/cluster/blacklist/list?${T}`,
        key: ['name', `cb${n}`],
        expect: { blacklist_type: 'ClientId', resource_name: `evil-${n}`, desc: `b${n}` },
      });
    }
    const rule = { action: 'All', source_topic: `ct/old${n}/#`, dest_topic: `ct/new${n}/$1`, regex: `^ct/old${n}/(.*)$` };
    return createStep({
      label: `topic-rewrite create cr${n}`,
      api,
      node: 1,
      path: '/api/cluster/topic-rewrite/create',
      body: { tenant: TENANT, name: `cr${n}`, ...rule },
      list: `/api/cluster/topic-rewrite/list?${T}`,
      key: ['name', `cr${n}`],
      expect: rule,
    });
  },
};

const schemasAndBindings: Writer = {
  name: 'schemas+bindings',
  group: 2,
  step(i, { api }) {
    const n = i >> 1;
    if (i % 2 === 0) {
      const schema = JSON.stringify({ type: 'object', title: `s${n}` });
      return createStep({
        label: `schema create cs${n}`,
        api,
        node: 2,
        path: '/api/cluster/schema/create',
        body: { tenant: TENANT, schema_name: `cs${n}`, schema_type: 'json', schema, desc: `s${n}` },
        list: `/api/cluster/schema/list?${T}`,
        key: ['name', `cs${n}`],
        expect: { schema_type: 'json', schema, desc: `s${n}` },
      });
    }
    return {
      label: `schema-bind create cs${n} -> ct/bound/${n}`,
      run: () => api.write(3, '/api/cluster/schema-bind/create', { tenant: TENANT, schema_name: `cs${n}`, resource_name: `ct/bound/${n}` }),
      async presence(view) {
        const row = (await view.list(`/api/cluster/schema-bind/list?${T}`)).find((r) => r.name === `ct/bound/${n}`);
        if (!row) return ABSENT;
        return JSON.stringify(row.data) === JSON.stringify([`cs${n}`])
          ? PRESENT
          : { state: 'partial', why: `binding lists ${JSON.stringify(row.data)}` };
      },
    };
  },
};

/** Topic creates (their answer's topic_id must come back) and message sends (their offset must hold them). */
const topicsAndMessages: Writer = {
  name: 'topics+messages',
  group: 1,
  step(i, { api }) {
    const n = i >> 1;
    if (i % 2 === 0) {
      return {
        label: `topic create ct/t${n}`,
        run: () => api.write(1, '/api/cluster/topic/create', { tenant: TENANT, topic_name: `ct/t${n}`, storage_type: 'EngineMemory' }),
        async presence(view, ack) {
          const row = (await view.list(`/api/cluster/topic/list?${T}&topic_name=ct/t`)).find((r) => r.topic_name === `ct/t${n}`);
          if (!row) return ABSENT;
          const id = (ack as { topic_id?: string } | undefined)?.topic_id;
          return id === undefined ? PRESENT : compareFields(row, { topic_id: id, storage_type: 'EngineMemory' });
        },
      };
    }
    return {
      label: `message send m${n} to ${LOG_TOPIC}`,
      run: () => api.write(2, '/api/mqtt/message/send', { tenant: TENANT, topic: LOG_TOPIC, payload: `m${n}` }),
      async presence(view, ack) {
        const found = (await view.records(TENANT, LOG_TOPIC)).filter((r) => r.content === `m${n}`);
        if (found.length === 0) return ABSENT;
        if (found.length > 1) return { state: 'partial', why: `m${n} is in the log ${found.length} times` };
        const offset = (ack as { offsets?: number[] } | undefined)?.offsets?.[0];
        return offset === undefined || found[0].offset === offset
          ? PRESENT
          : { state: 'partial', why: `m${n} is at offset ${found[0].offset}, answered ${offset}` };
      },
    };
  },
};

/** Connector creates (the record whole) and a config that each write raises (the value only goes up). */
const connectorsAndConfig: Writer = {
  name: 'connectors+config',
  group: 1,
  step(i, { api, dir }) {
    const n = i >> 1;
    if (i % 2 === 0) {
      const path = `${dir}/cc${n}.log`;
      return createStep({
        label: `connector create cc${n}`,
        api,
        node: 3,
        path: '/api/cluster/connector/create',
        body: {
          tenant: TENANT,
          connector_name: `cc${n}`,
          connector_type: 'file',
          config: JSON.stringify({ local_file_path: path }),
          topic_name: `ct/c${n}`,
          failure_strategy: { strategy: 'discard_after_retry', retry_total_times: 1 + (n % 5), wait_time_ms: 100 },
        },
        list: `/api/cluster/connector/list?${T}`,
        key: ['connector_name', `cc${n}`],
        expect: { connector_type: 'file', topic_name: `ct/c${n}`, config: new RegExp(`^\\{"local_file_path":"${escape(path)}"`) },
      });
    }
    const rate = 100_000 + n;
    return {
      overwrite: true,
      label: `config set ClusterLimit.max_admin_http_uri_rate=${rate}`,
      run: () =>
        api.write(1, '/api/cluster/config/set', { config_type: 'ClusterLimit', config: JSON.stringify({ max_admin_http_uri_rate: rate }) }),
      async presence(view) {
        const now = (await view.api.read('/api/cluster/config/get'))?.cluster_limit?.max_admin_http_uri_rate;
        return typeof now === 'number' && now >= rate ? PRESENT : ABSENT;
      },
    };
  },
};

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Control writes (/_sim/): mq9 mailboxes (their answer's create_time must come back) and agents; auto-subscribe rules. */
const mq9AndAutoSubscribe: Writer = {
  name: 'mq9+auto-subscribe',
  group: 1,
  step(i, { api }) {
    const n = Math.floor(i / 3);
    if (i % 3 === 0) {
      return {
        label: `/_sim/ mq9 mailbox create ct.box.${n}`,
        run: () => api.write(1, '/_sim/mq9/mailbox/create', { name: `ct.box.${n}`, ttl: 864_000, desc: `box ${n}` }),
        async presence(view, ack) {
          const row = (await view.list('/api/mq9/mail/list?mail_address=ct.box.')).find((r) => r.mail_address === `ct.box.${n}`);
          if (!row) return ABSENT;
          const created = (ack as { create_time?: number } | undefined)?.create_time;
          return compareFields(row, { desc: `box ${n}`, ...(created !== undefined ? { create_time: created } : {}) });
        },
      };
    }
    if (i % 3 === 1) {
      return createStep({
        label: `/_sim/ mq9 agent register ct-agent-${n}`,
        api,
        node: 1,
        path: '/_sim/mq9/agent/register',
        body: { name: `ct-agent-${n}`, agent_info: { n } },
        list: '/api/mq9/agent/list?name=ct-agent-',
        key: ['name', `ct-agent-${n}`],
        expect: { agent_info: JSON.stringify({ n }) },
      });
    }
    const rule = { topic: `ct/auto/${n}`, no_local: false, retain_as_published: false };
    return createStep({
      label: `auto-subscribe create cas${n}`,
      api,
      node: 2,
      path: '/api/mqtt/auto-subscribe/create',
      body: { tenant: TENANT, name: `cas${n}`, qos: 1, retained_handling: 0, ...rule },
      list: `/api/mqtt/auto-subscribe/list?${T}`,
      key: ['name', `cas${n}`],
      expect: { ...rule, qos: 'AtLeastOnce' },
    });
  },
};

/** The eight writers of the torture; `mqtt` keeps the writer's open client between its steps. */
export function crashWriters(mqtt: MqttWriterState): Writer[] {
  return [
    tenants,
    usersAndAcl,
    blacklistAndRewrite,
    schemasAndBindings,
    topicsAndMessages,
    connectorsAndConfig,
    mq9AndAutoSubscribe,
    { name: 'mqtt', group: 3, step: (i, ctx) => mqttSteps(mqtt, i, ctx) },
  ];
}
