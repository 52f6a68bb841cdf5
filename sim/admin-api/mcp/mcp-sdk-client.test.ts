import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusterServer, type RunningCluster } from '../../io/serve/cluster-server.ts';

/**
 * The official MCP TypeScript SDK (its Streamable HTTP client transport) against the simulator served
 * on loopback with the mcp-server switch, as an AI agent's MCP client would drive the real server.
 *
 * What the SDK makes of the real server's shapes: connecting works (the SDK accepts protocol
 * 2024-11-05, ignores the body answering its `initialized` notification, and takes the 405 to its GET
 * of /mcp as "no event stream"). The real server lists each tool's schema as `input_schema` and
 * answers a call with the bare result object; the switch adds MCP's `inputSchema` and `content` next
 * to them (both forms), so `listTools()` works and an agent reads each result from `content`.
 */

let server: RunningCluster;
let client: Client;

beforeAll(async () => {
  server = await startClusterServer({ seed: 21, nodes: 1, port: 0, workload: 'none', deviations: ['mcp-server'] });
  client = new Client({ name: 'mqsim-test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)));
});

afterAll(async () => {
  await client?.close();
  await server?.close();
});

async function adminGet(path: string): Promise<any> {
  const res = await request(`${server.baseUrl}${path}`);
  return JSON.parse(await res.body.text());
}

describe('an MCP SDK client drives the simulated mq9 through /mcp', () => {
  it('initializes against robustmq-mq9-mcp with the tools capability, and pings', async () => {
    expect(client.getServerVersion()?.name).toBe('robustmq-mq9-mcp');
    expect(client.getServerCapabilities()).toEqual({ tools: {} });
    expect(await client.ping()).toEqual({});
  });

  it('lists the nine tools (listTools(), as an agent does; the raw list also carries the real input_schema)', async () => {
    const { tools } = await client.listTools();
    expect(tools.every((t) => t.inputSchema.type === 'object')).toBe(true);
    const listed = (await client.request({ method: 'tools/list' }, ResultSchema)) as {
      tools: { name: string; input_schema: { type: string } }[];
    };
    expect(tools.map((t) => t.name)).toEqual(listed.tools.map((t) => t.name));
    expect(listed.tools.map((t) => t.name)).toEqual([
      'mq9_create_mailbox',
      'mq9_send_message',
      'mq9_fetch_messages',
      'mq9_ack_message',
      'mq9_query_mailbox',
      'mq9_register_agent',
      'mq9_discover_agents',
      'mq9_delete_message',
      'mq9_unregister_agent',
    ]);
    expect(listed.tools.every((t) => t.input_schema.type === 'object')).toBe(true);
  });

  it('creates a mailbox, sends, fetches, acks, queries and deletes; the admin API shows the mailbox', async () => {
    const call = async (name: string, args: Record<string, unknown>): Promise<any> => client.callTool({ name, arguments: args });
    const created = await call('mq9_create_mailbox', { name: 'sdk.inbox', ttl: 600, desc: 'made by an MCP client' });
    expect(created).toMatchObject({ mail_address: 'sdk.inbox', created: true });
    // What an agent reads: the same object as the text of MCP content.
    expect(JSON.parse(created.content[0].text)).toMatchObject({ mail_address: 'sdk.inbox', created: true });
    const mails = await adminGet('/api/mq9/mail/list?mail_address=sdk.inbox');
    expect(mails.data.data).toEqual([
      { tenant: 'default', mail_address: 'sdk.inbox', desc: 'made by an MCP client', ttl: 600, create_time: expect.any(Number) },
    ]);

    expect(await call('mq9_send_message', { mail_address: 'sdk.inbox', payload: 'first' })).toMatchObject({
      msg_id: 0,
      mail_address: 'sdk.inbox',
    });
    expect(await call('mq9_send_message', { mail_address: 'sdk.inbox', payload: 'urgent one', priority: 'urgent' })).toMatchObject({
      msg_id: 1,
    });
    const fetched = await call('mq9_fetch_messages', {
      mail_address: 'sdk.inbox',
      group_name: 'agent-a',
      reset_to: 'earliest',
      max_messages: 10,
    });
    expect(fetched.messages.map((m: any) => [m.msg_id, m.payload, m.priority])).toEqual([
      [1, 'urgent one', 'urgent'],
      [0, 'first', 'normal'],
    ]);
    expect(await call('mq9_ack_message', { mail_address: 'sdk.inbox', group_name: 'agent-a', msg_id: 1 })).toMatchObject({
      msg_id: 1,
      acked: true,
    });
    expect((await call('mq9_fetch_messages', { mail_address: 'sdk.inbox', group_name: 'agent-a' })).messages).toEqual([]);
    expect((await call('mq9_query_mailbox', { mail_address: 'sdk.inbox' })).messages.map((m: any) => m.payload)).toEqual([
      'first',
      'urgent one',
    ]);
    expect(await call('mq9_delete_message', { mail_address: 'sdk.inbox', msg_id: 0 })).toMatchObject({ msg_id: 0, deleted: true });
    expect((await call('mq9_query_mailbox', { mail_address: 'sdk.inbox' })).messages.map((m: any) => m.msg_id)).toEqual([1]);
  });

  it('registers, discovers and unregisters an agent; the admin agent list follows', async () => {
    expect(
      await client.callTool({ name: 'mq9_register_agent', arguments: { name: 'sdk-agent', payload: 'summarizes documents' } }),
    ).toMatchObject({ name: 'sdk-agent', registered: true });
    expect((await adminGet('/api/mq9/agent/list?name=sdk-agent')).data.data.map((a: any) => a.agent_info)).toEqual([
      'summarizes documents',
    ]);
    const found = (await client.callTool({ name: 'mq9_discover_agents', arguments: { query: 'summaries' } })) as any;
    expect(found.agents).toEqual([{ name: 'sdk-agent', agent_info: 'summarizes documents' }]);
    expect(await client.callTool({ name: 'mq9_unregister_agent', arguments: { name: 'sdk-agent' } })).toMatchObject({
      name: 'sdk-agent',
      unregistered: true,
    });
    expect((await adminGet('/api/mq9/agent/list')).data.total_count).toBe(0);
  });

  it('surfaces the real errors as JSON-RPC errors', async () => {
    const failure = await client
      .callTool({ name: 'mq9_send_message', arguments: { mail_address: 'no.such.box', payload: 'x' } })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(McpError);
    expect([(failure as McpError).code, (failure as McpError).message]).toEqual([
      -32603,
      'MCP error -32603: mailbox no.such.box does not exist',
    ]);
    const unknown = await client.callTool({ name: 'mq9_nope', arguments: {} }).catch((e: unknown) => e);
    expect((unknown as McpError).code).toBe(-32602);
    server.cluster.mq9.setRunning(false);
    const off = await client.callTool({ name: 'mq9_create_mailbox', arguments: {} }).catch((e: unknown) => e);
    expect((off as McpError).message).toMatch(/mq9 tools require nats-broker to be running$/);
    server.cluster.mq9.setRunning(true);
  });

  it('refuses a body over the limit as axum does, over the real listener', async () => {
    const res = await request(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"jsonrpc":"2.0","method":"ping","params":"${'x'.repeat(2_200_000)}"}`,
    });
    expect([res.statusCode, await res.body.text()]).toEqual([413, 'Failed to buffer the request body: length limit exceeded']);
  });
});
