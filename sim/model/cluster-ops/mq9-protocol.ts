import { OperationError } from '../errors/operation-error.ts';
import { BOOL, readStructText, SerdeError, seqOf, STRING, U32, U64, type StructDef } from '../api/serde-struct.ts';
import type { Cluster } from '../cluster/cluster.ts';
import type { Mq9Message } from '../mq9/mailbox-messages.ts';
import { DELIVER_POLICIES, type DeliverPolicy } from '../mq9/mq9-messaging.ts';

export const MQ9_PREFIX = '$mq9.AI';

/** The mq9 subjects the simulator answers as they are (prefix `$mq9.AI`, reference notes §9). */
export const MQ9_SUBJECTS = {
  mailboxCreate: '$mq9.AI.MAILBOX.CREATE',
  agentRegister: '$mq9.AI.AGENT.REGISTER',
  agentUnregister: '$mq9.AI.AGENT.UNREGISTER',
  agentReport: '$mq9.AI.AGENT.REPORT',
  agentDiscover: '$mq9.AI.AGENT.DISCOVER',
} as const;

/** The MSG commands: the mailbox address follows the prefix (and, for DELETE, `.{msg_id}`). */
export const MQ9_MSG_PREFIXES = {
  send: '$mq9.AI.MSG.SEND.',
  fetch: '$mq9.AI.MSG.FETCH.',
  ack: '$mq9.AI.MSG.ACK.',
  query: '$mq9.AI.MSG.QUERY.',
  delete: '$mq9.AI.MSG.DELETE.',
} as const;

/** What a NATS bridge subscribes to: the exact subjects, and every subject under each MSG prefix. */
export const MQ9_SUBSCRIPTIONS: readonly string[] = [
  ...Object.values(MQ9_SUBJECTS),
  ...Object.values(MQ9_MSG_PREFIXES).map((p) => `${p}>`),
];

/** The subject of a MSG command for a mailbox (and a message, for DELETE). */
export function msgSubject(command: keyof typeof MQ9_MSG_PREFIXES, mailAddress: string, msgId?: number | string): string {
  return `${MQ9_MSG_PREFIXES[command]}${mailAddress}${command === 'delete' ? `.${msgId}` : ''}`;
}

/** NATS headers of a request, by lower-case name (`mq9-priority`, `mq9-key`, `mq9-tags`, `mq9-ttl`, `mq9-delay`). */
export type Mq9Headers = Readonly<Record<string, string>>;

/** Protocol commands always act on tenant `default`, as on the real server. */
const TENANT = 'default';

// ---- request structs (mq9-core protocol.rs) -----------------------------------------------------

const MAILBOX_CREATE_REQ: StructDef = {
  name: 'MailboxCreateReq',
  fields: [
    { name: 'name', type: STRING, optional: true },
    { name: 'ttl', type: U64, optional: true },
    { name: 'desc', type: STRING, optional: true },
  ],
};
const AGENT_REGISTER_REQ: StructDef = {
  name: 'AgentRegisterReq',
  fields: [
    { name: 'name', type: STRING },
    { name: 'payload', type: STRING },
  ],
};
const AGENT_UNREGISTER_REQ: StructDef = { name: 'AgentUnregisterReq', fields: [{ name: 'name', type: STRING }] };
const AGENT_REPORT_REQ: StructDef = {
  name: 'AgentReportReq',
  fields: [
    { name: 'name', type: STRING },
    { name: 'report_info', type: STRING, optional: true },
  ],
};
const AGENT_DISCOVER_REQ: StructDef = {
  name: 'AgentDiscoverReq',
  fields: [
    { name: 'text', type: STRING, optional: true },
    { name: 'semantic', type: STRING, optional: true },
    { name: 'limit', type: U32, optional: true },
    { name: 'page', type: U32, optional: true },
  ],
};
const MSG_FETCH_CONFIG: StructDef = {
  name: 'MsgFetchConfig',
  fields: [
    { name: 'num_msgs', type: U32, optional: true },
    { name: 'max_wait_ms', type: U64, optional: true },
  ],
};
const MSG_FETCH_REQ: StructDef = {
  name: 'MsgFetchReq',
  fields: [
    { name: 'group_name', type: STRING, optional: true },
    // Absent means latest (protocol.md).
    { name: 'deliver', type: { kind: 'enum', name: 'DeliverPolicy', variants: DELIVER_POLICIES }, optional: true },
    { name: 'from_time', type: U64, optional: true },
    { name: 'from_id', type: U64, optional: true },
    { name: 'force_deliver', type: BOOL, optional: true },
    { name: 'config', type: { kind: 'struct', struct: MSG_FETCH_CONFIG }, optional: true },
  ],
};
const MSG_ACK_REQ: StructDef = {
  name: 'MsgAckReq',
  fields: [
    { name: 'group_name', type: STRING },
    { name: 'mail_address', type: STRING },
    { name: 'msg_id', type: U64 },
  ],
};
const MSG_QUERY_REQ: StructDef = {
  name: 'MsgQueryReq',
  fields: [
    { name: 'key', type: STRING, optional: true },
    { name: 'tags', type: seqOf(STRING), optional: true },
    { name: 'since', type: U64, optional: true },
    { name: 'limit', type: U64, optional: true },
  ],
};

/** A request the command refuses before it reaches the model (bad payload or subject). */
class RequestError extends Error {}

/** serde_json::from_slice of the payload, its error worded as the command words it (`prefix` + serde's text). */
function payloadStruct(def: StructDef, payload: string, prefix: string, emptyMeansDefault: boolean): Record<string, unknown> {
  if (emptyMeansDefault && payload.length === 0) return {};
  try {
    return readStructText(def, payload);
  } catch (e) {
    if (e instanceof SerdeError) throw new RequestError(`${prefix}${e.message}`);
    throw e;
  }
}

/** The header block the real broker keeps with a message (`NATS/1.0`, then `name: value` lines). */
function headerBytes(headers: Mq9Headers): number[] | null {
  const names = Object.keys(headers);
  if (names.length === 0) return null;
  return [...Buffer.from(`NATS/1.0\r\n${names.map((n) => `${n}: ${headers[n]}\r\n`).join('')}\r\n`, 'utf8')];
}

/** `MsgItem` of a FETCH or QUERY reply; `create_time` in seconds, as the storage record's. */
function item(m: Mq9Message) {
  return { msg_id: m.msgId, payload: m.payload, priority: m.priority, header: m.header, create_time: Math.floor(m.createdAt / 1000) };
}

/** A seconds header (`mq9-ttl`, `mq9-delay`): an unparsable value is ignored, as `.parse().ok()` does. */
function secondsHeader(headers: Mq9Headers, name: string): number | undefined {
  const v = headers[name]?.trim();
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/**
 * One command: its reply on success, or its reply type's default with `error` set (every reply carries
 * `error`; protocol.md's duplicate-create example shows `"mail_address":""` beside it).
 */
interface Command {
  readonly empty: Record<string, unknown>;
  run(rest: string, payload: string, headers: Mq9Headers): Record<string, unknown>;
}

function commands(cluster: Cluster): [string, Command][] {
  return [...mailboxAndAgentCommands(cluster.mq9), ...messageCommands(cluster.mq9.messages)];
}

/** MAILBOX.CREATE and the AGENT.* commands. */
function mailboxAndAgentCommands(mq9: Cluster['mq9']): [string, Command][] {
  return [
    [
      MQ9_SUBJECTS.mailboxCreate,
      {
        empty: { mail_address: '' },
        run: (_rest, payload) => {
          const o = payloadStruct(MAILBOX_CREATE_REQ, payload, 'invalid MAILBOX.CREATE payload: ', true);
          const box = mq9.createMailbox({ tenant: TENANT, ...(o as { name?: string; ttl?: number; desc?: string }) });
          return { mail_address: box.mail_address };
        },
      },
    ],
    [
      MQ9_SUBJECTS.agentRegister,
      {
        empty: {},
        run: (_rest, payload) => {
          registerAgent(mq9, payload);
          return {};
        },
      },
    ],
    [
      MQ9_SUBJECTS.agentUnregister,
      {
        empty: {},
        run: (_rest, payload) => {
          const req = payloadStruct(AGENT_UNREGISTER_REQ, payload, 'invalid AGENT.UNREGISTER payload: ', false) as { name: string };
          mq9.unregisterAgent(TENANT, req.name);
          return {};
        },
      },
    ],
    [
      MQ9_SUBJECTS.agentReport,
      {
        empty: {},
        run: (_rest, payload) => {
          const req = payloadStruct(AGENT_REPORT_REQ, payload, 'invalid AGENT.REPORT payload: ', false) as {
            name: string;
            report_info?: string;
          };
          mq9.reportAgent({ tenant: TENANT, name: req.name, ...(req.report_info !== undefined ? { reportInfo: req.report_info } : {}) });
          return {};
        },
      },
    ],
    [
      MQ9_SUBJECTS.agentDiscover,
      {
        empty: { agents: [] },
        run: (_rest, payload) => {
          const req = payloadStruct(AGENT_DISCOVER_REQ, payload, 'invalid AGENT.DISCOVER payload: ', true) as {
            text?: string;
            semantic?: string;
            limit?: number;
            page?: number;
          };
          const query = req.semantic || req.text || undefined;
          return {
            agents: mq9.discoverAgents({
              tenant: TENANT,
              ...(query ? { query } : {}),
              ...(req.limit !== undefined ? { limit: req.limit } : {}),
              ...(req.page !== undefined ? { page: req.page } : {}),
            }),
          };
        },
      },
    ],
  ];
}

/** The MSG.* commands on a mailbox's messages. */
function messageCommands(msgs: Cluster['mq9']['messages']): [string, Command][] {
  return [
    [
      MQ9_MSG_PREFIXES.send,
      {
        empty: { msg_id: 0 },
        run: (address, payload, headers) => {
          return { msg_id: sendMessage(msgs, address, payload, headers) };
        },
      },
    ],
    [
      MQ9_MSG_PREFIXES.fetch,
      {
        empty: { messages: [] },
        run: (address, payload) => {
          const req = payloadStruct(MSG_FETCH_REQ, payload, '', false) as {
            group_name?: string;
            deliver?: DeliverPolicy;
            from_time?: number;
            from_id?: number;
            force_deliver?: boolean;
            config?: { num_msgs?: number };
          };
          // max_wait_ms is not waited for: an empty answer comes at once (virtual time does not pass for a request).
          const fetched = msgs.fetch({
            tenant: TENANT,
            mailAddress: address,
            ...(req.group_name !== undefined ? { group: req.group_name } : {}),
            ...(req.deliver !== undefined ? { deliver: req.deliver } : {}),
            ...(req.from_time !== undefined ? { fromTime: req.from_time } : {}),
            ...(req.from_id !== undefined ? { fromId: req.from_id } : {}),
            force: req.force_deliver === true,
            ...(req.config?.num_msgs !== undefined ? { max: req.config.num_msgs } : {}),
          });
          return { messages: fetched.map(item) };
        },
      },
    ],
    [
      MQ9_MSG_PREFIXES.ack,
      {
        empty: {},
        run: (_address, payload) => {
          // The real ACK acts on the payload's mail_address.
          const req = payloadStruct(MSG_ACK_REQ, payload, '', false) as { group_name: string; mail_address: string; msg_id: number };
          msgs.ack({ tenant: TENANT, mailAddress: req.mail_address, group: req.group_name, msgId: req.msg_id });
          return {};
        },
      },
    ],
    [
      MQ9_MSG_PREFIXES.query,
      {
        empty: { messages: [] },
        run: (address, payload) => {
          const req = payloadStruct(MSG_QUERY_REQ, payload, 'invalid query request: ', true) as {
            key?: string;
            tags?: string[];
            since?: number;
            limit?: number;
          };
          return { messages: msgs.query({ tenant: TENANT, mailAddress: address, ...req }).map(item) };
        },
      },
    ],
    [
      MQ9_MSG_PREFIXES.delete,
      {
        empty: { deleted: false },
        run: (rest) => {
          const dot = rest.lastIndexOf('.');
          const address = dot < 0 ? '' : rest.slice(0, dot);
          const id = dot < 0 ? rest : rest.slice(dot + 1);
          if (!/^\d+$/.test(id) || !Number.isSafeInteger(Number(id))) throw new RequestError(`invalid msg_id: ${id}`);
          msgs.delete({ tenant: TENANT, mailAddress: address, msgId: Number(id) });
          return { deleted: true };
        },
      },
    ],
  ];
}

/** AGENT.REGISTER: the {name, payload} form, or an A2A agent card. */
function registerAgent(mq9: Cluster['mq9'], payload: string): void {
  if (payload.length === 0) throw new RequestError('payload must not be empty');
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    parsed = undefined;
  }
  // Decision: an object with a string `payload` is the {name, payload} form; any other object
  // with a string `name` is an A2A agent card, kept re-serialized.
  const o = parsed as Record<string, unknown> | undefined;
  if (o && typeof o === 'object' && !Array.isArray(o) && typeof o.name === 'string' && typeof o.payload !== 'string') {
    mq9.registerAgent({ tenant: TENANT, name: o.name, agent_info: JSON.stringify(o) });
  } else {
    const req = payloadStruct(AGENT_REGISTER_REQ, payload, 'invalid AGENT.REGISTER payload: ', false) as {
      name: string;
      payload: string;
    };
    mq9.registerAgent({ tenant: TENANT, name: req.name, agent_info: req.payload });
  }
}

/** MSG.SEND: the message with its `mq9-*` headers; returns its msg_id. */
function sendMessage(msgs: Cluster['mq9']['messages'], address: string, payload: string, headers: Mq9Headers): number {
  const tags = headers['mq9-tags']
    ?.split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
  const ttl = secondsHeader(headers, 'mq9-ttl');
  const delay = secondsHeader(headers, 'mq9-delay');
  const header = headerBytes(headers);
  return msgs.send({
    tenant: TENANT,
    mailAddress: address,
    payload,
    ...(headers['mq9-priority'] !== undefined ? { priority: headers['mq9-priority'] } : {}),
    ...(headers['mq9-key'] !== undefined ? { key: headers['mq9-key'].trim() } : {}),
    ...(tags ? { tags } : {}),
    ...(ttl !== undefined ? { ttlSec: ttl } : {}),
    ...(delay !== undefined ? { delaySec: delay } : {}),
    ...(header ? { header } : {}),
  });
}

/**
 * Answers one mq9 request (subject, payload text, NATS headers) with the JSON reply the real server
 * sends: `{"error":"", …}` on success, the reply's defaults with `error` set on failure. Synchronous, on
 * the model; the NATS bridge (live I/O), the MCP server and tests call it. Undefined for a subject it
 * does not serve.
 */
export function answerMq9Request(
  cluster: Cluster,
  subject: string,
  payload: string,
  headers: Mq9Headers = {},
): Record<string, unknown> | undefined {
  for (const [s, command] of commands(cluster)) {
    const exact = !s.endsWith('.');
    if (exact ? subject !== s : !subject.startsWith(s)) continue;
    try {
      return { error: '', ...command.run(exact ? '' : subject.slice(s.length), payload, headers) };
    } catch (e) {
      if (e instanceof RequestError || e instanceof OperationError) return { error: e.message, ...command.empty };
      throw e;
    }
  }
  return undefined;
}

/** The same for a request given as JSON values (the MCP tools build theirs as the real ones do). */
export function mq9Request(
  cluster: Cluster,
  subject: string,
  body: unknown,
  headers: Mq9Headers = {},
): Record<string, unknown> | undefined {
  return answerMq9Request(cluster, subject, typeof body === 'string' ? body : JSON.stringify(body), headers);
}
