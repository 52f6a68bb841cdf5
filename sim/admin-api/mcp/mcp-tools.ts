/**
 * The nine mq9 tools of the real server's MCP server (reference notes §4.12; the real
 * `admin-server/src/mcp/mq9/{mod,mailbox,message,agent}.rs`), run on the simulator's mq9 the way the
 * real ones run on the broker: each builds the mq9 request the real tool sends over NATS, asks the
 * protocol layer (`answerMq9Request`, which the NATS bridge answers with too), and shapes the reply as
 * the real tool does. Names, descriptions and input schemas are the real ones.
 */
import { readStruct, seqOf, STRING, U32, U64, type StructDef } from '../../model/api/serde-struct.ts';
import type { Cluster } from '../../model/cluster/cluster.ts';
import { MQ9_SUBJECTS, mq9Request, msgSubject, type Mq9Headers } from '../../model/cluster-ops/mq9-protocol.ts';

/**
 * A tool as `tools/list` shows it. The real `Tool` struct serializes its schema as `input_schema`;
 * MCP (and every agent's client: the SDK's `listTools()` refuses a tool without it) reads
 * `inputSchema`. Both are sent, the same object, so real-server clients and agents read the list.
 */
export interface ToolDescription {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Record<string, unknown>;
  readonly inputSchema?: Record<string, unknown>;
}

/** A failed tool: `McpToolError::BrokerError`, whose text is the broker's `error`. */
export class ToolError extends Error {}

interface Tool extends ToolDescription {
  /** The tool's arguments struct (serde_json::from_value reads them). */
  readonly args: StructDef;
  run(cluster: Cluster, args: Record<string, unknown>): Record<string, unknown>;
}

type Obj = Record<string, unknown>;

const str = (description: string) => ({ type: 'string', description });
const int = (description: string) => ({ type: 'integer', description });

/** One mq9 request; a reply with a non-empty `error` is the tool's failure. */
function ask(cluster: Cluster, subject: string, body: unknown, headers: Mq9Headers = {}): Obj {
  const reply = mq9Request(cluster, subject, body, headers);
  if (!reply) throw new Error(`no mq9 command answers ${subject}`);
  if (typeof reply.error === 'string' && reply.error !== '') throw new ToolError(reply.error);
  return reply;
}

/** The messages of a FETCH or QUERY reply as the tools return them (no header). */
function messagesOf(reply: Obj): Obj[] {
  return (reply.messages as Obj[]).map((m) => ({ msg_id: m.msg_id, payload: m.payload, priority: m.priority, create_time: m.create_time }));
}

/**
 * The real `parse_reset_to`: omitted resumes (latest, no forced reset); `earliest`, `latest`,
 * `time:<unix seconds>` and `id:<msg_id>` force a reset there; anything else forces latest.
 */
function resetTo(value: string | undefined): {
  deliver: string;
  from_time: number | null;
  from_id: number | null;
  force_deliver: boolean | null;
} {
  const plain = (deliver: string, force: boolean | null) => ({ deliver, from_time: null, from_id: null, force_deliver: force });
  if (value === undefined) return plain('latest', null);
  if (value === 'earliest' || value === 'latest') return plain(value, true);
  const time = /^time:(\d+)$/.exec(value);
  if (time && Number.isSafeInteger(Number(time[1])))
    return { deliver: 'from_time', from_time: Number(time[1]), from_id: null, force_deliver: true };
  const id = /^id:(\d+)$/.exec(value);
  if (id && Number.isSafeInteger(Number(id[1])))
    return { deliver: 'from_id', from_time: null, from_id: Number(id[1]), force_deliver: true };
  return plain('latest', true);
}

const TOOLS: readonly Tool[] = [
  {
    name: 'mq9_create_mailbox',
    description:
      'Create a new mq9 mailbox (inbox). Use this before sending or receiving messages. The mailbox name must be lowercase letters, digits, and dots. If name is omitted the broker generates one.',
    input_schema: {
      type: 'object',
      properties: {
        name: str('Mailbox name (lowercase, dots allowed). Auto-generated if omitted.'),
        ttl: int('Time-to-live in seconds. Uses broker default when absent.'),
        desc: str('Optional human-readable description.'),
      },
      required: [],
    },
    args: {
      name: 'CreateMailboxArgs',
      fields: [
        { name: 'name', type: STRING, optional: true },
        { name: 'ttl', type: U64, optional: true },
        { name: 'desc', type: STRING, optional: true },
      ],
    },
    run: (cluster, a) => {
      const reply = ask(cluster, MQ9_SUBJECTS.mailboxCreate, { name: a.name ?? null, ttl: a.ttl ?? null, desc: a.desc ?? null });
      return { mail_address: reply.mail_address, created: true };
    },
  },
  {
    name: 'mq9_send_message',
    description: 'Send a message to a mailbox. Use this to deliver a message to another agent or to yourself.',
    input_schema: {
      type: 'object',
      properties: {
        mail_address: str('Destination mailbox address.'),
        payload: str('Message body (UTF-8 string). Can be plain text or JSON.'),
        priority: {
          type: 'string',
          enum: ['normal', 'urgent', 'critical'],
          description: "Message priority. Default is 'normal'. Use 'urgent' or 'critical' for time-sensitive messages.",
        },
      },
      required: ['mail_address', 'payload'],
    },
    args: {
      name: 'SendMessageArgs',
      fields: [
        { name: 'mail_address', type: STRING },
        { name: 'payload', type: STRING },
        { name: 'priority', type: STRING, optional: true },
      ],
    },
    run: (cluster, a) => {
      // The priority travels as the mq9-priority header, the body is the payload as it is.
      const reply = ask(
        cluster,
        msgSubject('send', a.mail_address as string),
        a.payload as string,
        a.priority === undefined ? {} : { 'mq9-priority': a.priority as string },
      );
      return { msg_id: reply.msg_id, mail_address: a.mail_address };
    },
  },
  {
    name: 'mq9_fetch_messages',
    description:
      'Fetch messages from a mailbox. This is the primary way to consume messages. After processing, call mq9_ack_message to confirm delivery. The consumer position is tracked per group_name, so different groups consume independently.',
    input_schema: {
      type: 'object',
      properties: {
        mail_address: str('Mailbox address to fetch from.'),
        group_name: str('Consumer group identifier. Use a stable name (e.g. your agent ID) to track your read position across calls.'),
        reset_to: str(
          "Where to start reading. Omit to resume from the last acked position. Supported values: 'earliest' (re-read from the beginning), 'latest' (skip history, only new messages), 'time:<unix_seconds>' (start from a specific timestamp, e.g. 'time:1746000000'), 'id:<msg_id>' (start from a specific message, e.g. 'id:42').",
        ),
        max_messages: int('Maximum number of messages to return. Default 100.'),
      },
      required: ['mail_address', 'group_name'],
    },
    args: {
      name: 'FetchMessagesArgs',
      fields: [
        { name: 'mail_address', type: STRING },
        // Optional in the real args struct (stateless fetch without it), though the schema asks for it.
        { name: 'group_name', type: STRING, optional: true },
        { name: 'reset_to', type: STRING, optional: true },
        { name: 'max_messages', type: U32, optional: true },
      ],
    },
    run: (cluster, a) => {
      const req = {
        group_name: a.group_name ?? null,
        ...resetTo(a.reset_to as string | undefined),
        config: { num_msgs: a.max_messages ?? null, max_wait_ms: null },
      };
      return { messages: messagesOf(ask(cluster, msgSubject('fetch', a.mail_address as string), req)) };
    },
  },
  {
    name: 'mq9_ack_message',
    description: 'Acknowledge that messages up to msg_id have been processed. The next fetch call will resume after this message.',
    input_schema: {
      type: 'object',
      properties: {
        mail_address: str('Mailbox address.'),
        group_name: str('Consumer group name (must match the group used in fetch).'),
        msg_id: int('ID of the last successfully processed message.'),
      },
      required: ['mail_address', 'group_name', 'msg_id'],
    },
    args: {
      name: 'AckMessageArgs',
      fields: [
        { name: 'mail_address', type: STRING },
        { name: 'group_name', type: STRING },
        { name: 'msg_id', type: U64 },
      ],
    },
    run: (cluster, a) => {
      ask(cluster, msgSubject('ack', a.mail_address as string), {
        group_name: a.group_name,
        mail_address: a.mail_address,
        msg_id: a.msg_id,
      });
      return { msg_id: a.msg_id, acked: true };
    },
  },
  {
    name: 'mq9_query_mailbox',
    description:
      'Inspect messages in a mailbox without advancing the consumer position. Use this to peek at messages without consuming them, or to search by tag or time range.',
    input_schema: {
      type: 'object',
      properties: {
        mail_address: str('Mailbox address.'),
        key: str('Filter by message key (exact match).'),
        tags: {
          type: 'array',
          items: { type: 'string' },
          description: 'Filter by tags. Only messages carrying all specified tags are returned.',
        },
        since: int('Only return messages created after this Unix timestamp (seconds).'),
        limit: int('Maximum number of messages to return. Default 20.'),
      },
      required: ['mail_address'],
    },
    args: {
      name: 'QueryMailboxArgs',
      fields: [
        { name: 'mail_address', type: STRING },
        { name: 'key', type: STRING, optional: true },
        { name: 'tags', type: seqOf(STRING), optional: true },
        { name: 'since', type: U64, optional: true },
        { name: 'limit', type: U64, optional: true },
      ],
    },
    run: (cluster, a) => {
      const req = { key: a.key ?? null, tags: a.tags ?? null, since: a.since ?? null, limit: a.limit ?? null };
      return { messages: messagesOf(ask(cluster, msgSubject('query', a.mail_address as string), req)) };
    },
  },
  {
    name: 'mq9_register_agent',
    description:
      "Register this agent in the mq9 agent registry so other agents can discover it. Call this once at startup with a description of the agent's capabilities.",
    input_schema: {
      type: 'object',
      properties: {
        name: str('Unique agent name.'),
        payload: str('Agent capability description (plain text or A2A AgentCard JSON as a string).'),
      },
      required: ['name', 'payload'],
    },
    args: {
      name: 'RegisterAgentArgs',
      fields: [
        { name: 'name', type: STRING },
        { name: 'payload', type: STRING },
      ],
    },
    run: (cluster, a) => {
      ask(cluster, MQ9_SUBJECTS.agentRegister, { name: a.name, payload: a.payload });
      return { name: a.name, registered: true };
    },
  },
  {
    name: 'mq9_discover_agents',
    description:
      'Find agents registered in the mq9 registry. Use this to locate agents with specific capabilities before sending them a message.',
    input_schema: {
      type: 'object',
      properties: {
        query: str("Natural-language capability query (e.g. 'translation agent') or tag query (e.g. 'tag:translation')."),
        limit: int('Maximum number of agents to return. Default 20.'),
      },
      required: [],
    },
    args: {
      name: 'DiscoverAgentsArgs',
      fields: [
        { name: 'query', type: STRING, optional: true },
        { name: 'limit', type: U32, optional: true },
      ],
    },
    run: (cluster, a) => {
      // As the real tool: `query` is sent under that name, which AGENT.DISCOVER does not read
      // (it reads `text` and `semantic`), so every agent of the tenant comes back.
      const reply = ask(cluster, MQ9_SUBJECTS.agentDiscover, { query: a.query ?? null, limit: a.limit ?? 20 });
      return { agents: reply.agents };
    },
  },
  {
    // The snapshot's tool list was not among the sources read; this tool's description and schema
    // follow its arguments struct (DeleteMessageArgs {mail_address, msg_id}) and the mq9 MCP docs.
    name: 'mq9_delete_message',
    description: 'Delete a specific message from a mailbox.',
    input_schema: {
      type: 'object',
      properties: {
        mail_address: str('Mailbox address.'),
        msg_id: int('ID of the message to delete (from a fetch or query response).'),
      },
      required: ['mail_address', 'msg_id'],
    },
    args: {
      name: 'DeleteMessageArgs',
      fields: [
        { name: 'mail_address', type: STRING },
        { name: 'msg_id', type: U64 },
      ],
    },
    run: (cluster, a) => {
      ask(cluster, msgSubject('delete', a.mail_address as string, a.msg_id as number), '');
      return { msg_id: a.msg_id, deleted: true };
    },
  },
  {
    name: 'mq9_unregister_agent',
    description: 'Remove this agent from the registry. Call this when the agent is shutting down.',
    input_schema: {
      type: 'object',
      properties: { name: str('Agent name to unregister.') },
      required: ['name'],
    },
    args: { name: 'UnregisterAgentArgs', fields: [{ name: 'name', type: STRING }] },
    run: (cluster, a) => {
      ask(cluster, MQ9_SUBJECTS.agentUnregister, { name: a.name });
      return { name: a.name, unregistered: true };
    },
  },
];

/** The tools as `tools/list` lists them. */
export function toolDescriptions(): ToolDescription[] {
  return TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema, inputSchema: t.input_schema }));
}

export function toolNamed(
  name: string,
): { args: StructDef; run: (cluster: Cluster, args: unknown) => Record<string, unknown> } | undefined {
  const tool = TOOLS.find((t) => t.name === name);
  // The arguments are read as serde_json::from_value reads them: a SerdeError names what is wrong.
  return tool && { args: tool.args, run: (cluster, args) => tool.run(cluster, readStruct(tool.args, args)) };
}
