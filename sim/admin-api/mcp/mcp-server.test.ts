import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../model/cluster/cluster.ts';
import { AdminApp, type ModelWrite } from '../admin-app.ts';
import { TwinApps, type Caller } from '../../dialects/robustmq/testing/real-server-test-kit.ts';
import { journaled } from '../../io/state/state-file.ts';
import { replayWrites } from '../../io/state/state-replay.ts';
import { resolveDeviations } from '../../switches/resolve-switches.ts';

/**
 * POST /mcp of the mcp-server switch, in process: JSON-RPC as the real server answers it, the nine mq9
 * tools on the simulator's mq9, and bad input of every kind answered without a 5xx.
 */

type Row = Record<string, any>;

function mcpOf(caller: Caller) {
  let next = 1;
  const rpc = async (method: string, params?: unknown, id: unknown = next++) => {
    const res = await caller.post('/mcp', { jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
    expect([res.status, res.headers['content-type']]).toEqual([200, 'application/json']);
    return res.json;
  };
  const call = async (name: string, args?: unknown) => {
    const res = await rpc('tools/call', { name, ...(args !== undefined ? { arguments: args } : {}) });
    if (res.error) throw new Error(`${name}: ${res.error.code} ${res.error.message}`);
    return resultObject(res.result);
  };
  const callError = async (name: string, args?: unknown) =>
    (await rpc('tools/call', { name, ...(args !== undefined ? { arguments: args } : {}) })).error;
  return { rpc, call, callError };
}

/** The real result object, after checking that MCP `content` (for agents) holds the same as JSON text. */
function resultObject(result: Row): Row {
  const { content, ...real } = result;
  expect(content).toEqual([{ type: 'text', text: JSON.stringify(real) }]);
  return real;
}

function setUp() {
  const apps = new TwinApps({ workload: 'none', seed: 11 });
  const sw = apps.with('mcp-server');
  return { apps, sw, ...mcpOf(sw) };
}

describe('mcp-server: JSON-RPC methods', () => {
  it('answers ping, initialize and tools/list as the real server', async () => {
    const { apps, rpc } = setUp();
    expect((await apps.plain.post('/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(404);
    expect(await rpc('ping', undefined, 7)).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    const init = await rpc('initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } }, 'a');
    expect(init).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      result: {
        protocolVersion: '2024-11-05',
        capabilities: { tools: {} },
        serverInfo: { name: 'robustmq-mq9-mcp', version: expect.any(String) },
      },
    });
    const tools = (await rpc('tools/list')).result.tools as Row[];
    expect(tools.map((t) => t.name)).toEqual([
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
    for (const t of tools) {
      // The real field, and MCP's name for the same schema (both forms: agents' clients read inputSchema).
      expect(Object.keys(t)).toEqual(['name', 'description', 'input_schema', 'inputSchema']);
      expect(t.inputSchema).toEqual(t.input_schema);
      expect(t.input_schema.type).toBe('object');
      for (const r of t.input_schema.required) expect(Object.keys(t.input_schema.properties)).toContain(r);
    }
    expect(tools[1].input_schema.properties.priority.enum).toEqual(['normal', 'urgent', 'critical']);
    expect(tools[2].input_schema.required).toEqual(['mail_address', 'group_name']);
  });

  it('answers other methods, notifications included, with -32601 and the request id (null when none)', async () => {
    const { sw, rpc } = setUp();
    expect(await rpc('resources/list', undefined, 3)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32601, message: 'Method not found' },
    });
    const note = await sw.post('/mcp', { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect([note.status, note.json]).toEqual([200, { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found' } }]);
    // The id comes back as sent, whatever JSON it is; jsonrpc is read but not checked.
    expect((await sw.post('/mcp', { jsonrpc: '1.0', id: { k: [1] }, method: 'ping' })).json).toEqual({
      jsonrpc: '2.0',
      id: { k: [1] },
      result: {},
    });
  });
});

describe('mcp-server: the nine tools on the simulator mq9', () => {
  it('drive mailboxes and messages: create, send, fetch, ack, query, delete; the admin list shows them', async () => {
    const { sw, call, callError } = setUp();
    const auto = await call('mq9_create_mailbox', {});
    expect(auto).toEqual({ mail_address: expect.stringMatching(/^[a-z0-9]{20}$/), created: true });
    expect(await call('mq9_create_mailbox', { name: 'mcp.tasks', ttl: 3600, desc: 'from mcp' })).toEqual({
      mail_address: 'mcp.tasks',
      created: true,
    });
    const list = (await sw.get('/api/mq9/mail/list?mail_address=mcp.tasks')).json.data.data;
    expect(list).toEqual([{ tenant: 'default', mail_address: 'mcp.tasks', desc: 'from mcp', ttl: 3600, create_time: expect.any(Number) }]);
    expect(await callError('mq9_create_mailbox', { name: 'mcp.tasks' })).toEqual({
      code: -32603,
      message: 'mailbox mcp.tasks already exists',
    });

    expect(await call('mq9_send_message', { mail_address: 'mcp.tasks', payload: 'hello 1' })).toEqual({
      msg_id: 0,
      mail_address: 'mcp.tasks',
    });
    expect(await call('mq9_send_message', { mail_address: 'mcp.tasks', payload: 'hello 2', priority: 'urgent' })).toEqual({
      msg_id: 1,
      mail_address: 'mcp.tasks',
    });
    expect((await call('mq9_send_message', { mail_address: 'mcp.tasks', payload: 'stop', priority: 'critical' })).msg_id).toBe(2);

    const fetched = await call('mq9_fetch_messages', {
      mail_address: 'mcp.tasks',
      group_name: 'g1',
      reset_to: 'earliest',
      max_messages: 10,
    });
    expect(fetched.messages.map((m: Row) => [m.msg_id, m.payload, m.priority])).toEqual([
      [2, 'stop', 'critical'],
      [1, 'hello 2', 'urgent'],
      [0, 'hello 1', 'normal'],
    ]);
    expect(Object.keys(fetched.messages[0])).toEqual(['msg_id', 'payload', 'priority', 'create_time']);
    expect(await call('mq9_ack_message', { mail_address: 'mcp.tasks', group_name: 'g1', msg_id: 2 })).toEqual({ msg_id: 2, acked: true });
    expect((await call('mq9_fetch_messages', { mail_address: 'mcp.tasks', group_name: 'g1', max_messages: 10 })).messages).toEqual([]);
    expect(
      (await call('mq9_fetch_messages', { mail_address: 'mcp.tasks', group_name: 'g2', reset_to: 'id:1' })).messages.map(
        (m: Row) => m.msg_id,
      ),
    ).toEqual([2, 1]);
    // Omitted reset_to on a group without a position: latest, nothing yet.
    expect((await call('mq9_fetch_messages', { mail_address: 'mcp.tasks', group_name: 'g3' })).messages).toEqual([]);

    expect((await call('mq9_query_mailbox', { mail_address: 'mcp.tasks', limit: 2 })).messages.map((m: Row) => m.msg_id)).toEqual([0, 1]);
    expect(await call('mq9_delete_message', { mail_address: 'mcp.tasks', msg_id: 1 })).toEqual({ msg_id: 1, deleted: true });
    expect((await call('mq9_query_mailbox', { mail_address: 'mcp.tasks' })).messages.map((m: Row) => m.payload)).toEqual([
      'hello 1',
      'stop',
    ]);
    expect(await callError('mq9_delete_message', { mail_address: 'mcp.tasks', msg_id: 1 })).toEqual({
      code: -32603,
      message: 'message not found',
    });
    expect(await callError('mq9_send_message', { mail_address: 'no.box', payload: 'x' })).toEqual({
      code: -32603,
      message: 'mailbox no.box does not exist',
    });
  });

  it('register, discover and unregister agents; the admin agent list follows', async () => {
    const { sw, call } = setUp();
    expect(await call('mq9_register_agent', { name: 'translator', payload: 'translates EN and ZH' })).toEqual({
      name: 'translator',
      registered: true,
    });
    expect(await call('mq9_register_agent', { name: 'payer', payload: 'handles invoices' })).toEqual({ name: 'payer', registered: true });
    expect((await sw.get('/api/mq9/agent/list?name=translator')).json.data.data).toEqual([
      { tenant: 'default', name: 'translator', agent_info: 'translates EN and ZH', create_time: expect.any(Number) },
    ]);
    // As the real tool: the query goes under a key DISCOVER does not read, so every agent comes back.
    expect(await call('mq9_discover_agents', { query: 'invoices', limit: 1 })).toEqual({
      agents: [
        { name: 'translator', agent_info: 'translates EN and ZH' },
        { name: 'payer', agent_info: 'handles invoices' },
      ],
    });
    expect(await call('mq9_unregister_agent', { name: 'translator' })).toEqual({ name: 'translator', unregistered: true });
    expect((await sw.get('/api/mq9/agent/list')).json.data.data.map((a: Row) => a.name)).toEqual(['payer']);
  });

  it('refuses unknown tools, bad arguments and calls while mq9 is off with the real codes and texts', async () => {
    const { apps, rpc, callError } = setUp();
    expect(await callError('mq9_nope', {})).toEqual({ code: -32602, message: 'Unknown tool: mq9_nope' });
    expect((await rpc('tools/call', { arguments: {} })).error).toEqual({ code: -32603, message: "missing 'name' in tools/call params" });
    expect((await rpc('tools/call')).error).toEqual({ code: -32603, message: "missing 'name' in tools/call params" });
    expect((await rpc('tools/call', { name: 7 })).error.message).toBe("missing 'name' in tools/call params");
    expect(await callError('mq9_send_message', { payload: 'x' })).toEqual({ code: -32603, message: 'missing field `mail_address`' });
    expect(await callError('mq9_ack_message', { mail_address: 'a', group_name: 'g', msg_id: 'one' })).toEqual({
      code: -32603,
      message: 'invalid type: string "one", expected u64',
    });
    expect(await callError('mq9_ack_message', { mail_address: 'a', group_name: 'g', msg_id: -1 })).toEqual({
      code: -32603,
      message: 'invalid value: integer `-1`, expected u64',
    });
    expect(await callError('mq9_create_mailbox', 'name')).toEqual({
      code: -32603,
      message: 'invalid type: string "name", expected struct CreateMailboxArgs',
    });
    expect(await callError('mq9_create_mailbox', null)).toEqual({
      code: -32603,
      message: 'invalid type: null, expected struct CreateMailboxArgs',
    });
    // Arguments by position are a struct too, as serde reads one.
    expect(await callError('mq9_unregister_agent', [])).toEqual({
      code: -32603,
      message: 'invalid length 0, expected struct UnregisterAgentArgs with 1 elements',
    });
    apps.cluster.mq9.setRunning(false);
    expect(await callError('mq9_create_mailbox', {})).toEqual({ code: -32603, message: 'mq9 tools require nats-broker to be running' });
    expect(await callError('mq9_nope', {})).toEqual({ code: -32603, message: 'mq9 tools require nats-broker to be running' });
    expect((await rpc('tools/list')).result.tools).toHaveLength(9);
  });
});

describe('mcp-server: the HTTP side', () => {
  it('refuses bodies that are no McpRequest as axum Json does (plain text, not JSON-RPC)', async () => {
    const { sw } = setUp();
    const raw = (text: string, type = 'application/json') =>
      sw.call('POST', '/mcp', undefined, { rawBody: text, headers: { 'content-type': type } });
    const syntax = await raw('{"jsonrpc":');
    expect([syntax.status, syntax.headers['content-type'], syntax.text]).toEqual([
      400,
      'text/plain; charset=utf-8',
      'Failed to parse the request body as JSON: EOF while parsing a value at line 1 column 11',
    ]);
    expect((await raw('{}', 'text/plain')).status).toBe(415);
    expect((await raw('{"jsonrpc":"2.0","id":1}')).text).toBe(
      'Failed to deserialize the JSON body into the target type: missing field `method` at line 1 column 24',
    );
    expect((await raw('{"jsonrpc":2,"method":"ping"}')).text).toBe(
      'Failed to deserialize the JSON body into the target type: jsonrpc: invalid type: integer `2`, expected a string at line 1 column 12',
    );
    // No batches: an array is a struct by position for serde, and a request object is not a string.
    const batch = await raw('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
    expect([batch.status, batch.text]).toEqual([
      422,
      'Failed to deserialize the JSON body into the target type: [0]: invalid type: map, expected a string at line 1 column 41',
    ]);
    expect((await raw('["2.0",1,"ping",null]')).json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect((await raw('"ping"')).status).toBe(422);
    expect((await raw('[[[['.repeat(40) + ']]]]'.repeat(40))).status).toBe(400);
    expect((await sw.get('/mcp')).headers.allow).toBe('POST');
    expect((await sw.call('DELETE', '/mcp')).status).toBe(405);
  });

  it('serves the OAuth discovery routes and refuses dynamic registration, without authentication', async () => {
    const { apps, sw } = setUp();
    const remote = { peer: '10.0.0.9' };
    const res = await sw.get('/.well-known/oauth-protected-resource', { ...remote, headers: { host: 'mq.example:9981' } });
    expect([res.status, res.headers['content-type'], res.json]).toEqual([
      200,
      'application/json',
      {
        resource: 'http://mq.example:9981/mcp',
        bearer_methods_supported: [],
        resource_documentation: 'https://github.com/robustmq/robustmq',
      },
    ]);
    expect((await sw.get('/.well-known/oauth-protected-resource/mcp', { headers: { 'x-forwarded-proto': 'https' } })).json.resource).toBe(
      'https://localhost:58080/mcp',
    );
    for (const p of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration/mcp',
      '/mcp/.well-known/openid-configuration',
    ]) {
      expect(await sw.get(p, remote)).toMatchObject({ status: 404, text: '' });
    }
    const register = await sw.post('/register', {}, remote);
    expect([register.status, register.headers['content-type'], register.json]).toEqual([
      400,
      'application/json',
      { error: 'invalid_client_metadata', error_description: 'Dynamic client registration is not supported. No authentication required.' },
    ]);
    expect((await sw.post('/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' }, remote)).json.result).toEqual({});
    expect((await apps.plain.get('/.well-known/oauth-protected-resource')).status).toBe(404);
  });

  it('never answers a 5xx, whatever arrives (fuzzed bodies, methods, tools and arguments)', async () => {
    const { sw } = setUp();
    const json = fc.jsonValue({ maxDepth: 4 });
    // Argument values: mostly strings that trouble subjects and parsers, some numbers, some any JSON.
    const hostile = fc.oneof(
      fc.constantFrom('', '.', 'a..b', '*', '>', 'x.', ' ', 'id:', 'time:x', 'id:99999999999999999999', 'task.queue', 'earliest'),
      fc.string({ maxLength: 30 }),
    );
    const value = fc.oneof(
      { weight: 4, arbitrary: hostile },
      { weight: 2, arbitrary: fc.integer({ min: -3, max: 3 }) },
      { weight: 1, arbitrary: json },
    );
    const argNames = [
      'name',
      'mail_address',
      'payload',
      'priority',
      'group_name',
      'reset_to',
      'max_messages',
      'msg_id',
      'key',
      'tags',
      'since',
      'limit',
      'query',
      'ttl',
      'desc',
    ] as const;
    const args = fc.oneof(
      { weight: 1, arbitrary: json },
      { weight: 4, arbitrary: fc.record(Object.fromEntries(argNames.map((n) => [n, value])), { requiredKeys: [] }) },
    );
    const body = fc.oneof(
      fc.string({ maxLength: 200 }),
      json.map((v) => JSON.stringify(v)),
      fc
        .record(
          {
            jsonrpc: fc.oneof(fc.constant('2.0'), json),
            id: json,
            method: fc.oneof(fc.constantFrom('ping', 'initialize', 'tools/list', 'tools/call', 'x'), fc.string()),
            params: json,
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
      fc
        .record({
          name: fc.constantFrom(
            'mq9_create_mailbox',
            'mq9_send_message',
            'mq9_fetch_messages',
            'mq9_ack_message',
            'mq9_query_mailbox',
            'mq9_register_agent',
            'mq9_discover_agents',
            'mq9_delete_message',
            'mq9_unregister_agent',
            'nope',
          ),
          arguments: args,
        })
        .map((params) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params })),
    );
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const res = await sw.call('POST', '/mcp', undefined, { rawBody: text, headers: { 'content-type': 'application/json' } });
        expect(res.status).toBeLessThan(500);
        if (res.status === 200) {
          expect(res.json.jsonrpc).toBe('2.0');
          expect('result' in res.json !== 'error' in res.json).toBe(true);
        } else expect([400, 422]).toContain(res.status);
      }),
      { numRuns: 600, seed: 12 },
    );
    // Huge parameters are data like any other.
    const big = await sw.post('/mcp', {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'mq9_register_agent', arguments: { name: 'big', payload: 'x'.repeat(1_500_000) } },
    });
    expect(resultObject(big.json.result)).toEqual({ name: 'big', registered: true });
  });

  it('tool calls that change the model are journaled and replay to the same state', async () => {
    const writes: ModelWrite[] = [];
    const build = () => new Cluster({ seed: 5, nodes: 1, workload: 'none' }).start();
    const a = build();
    const app = new AdminApp(a, { deviations: resolveDeviations(['mcp-server']), onModelWrite: (w) => void writes.push(w) });
    const caller: Caller = {
      call: async (method, url, body) => {
        const res = await app.handle({
          method,
          url,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          peer: '127.0.0.1',
          nodeId: 1,
        });
        return { status: res.status, headers: res.headers, text: res.body, json: JSON.parse(res.body) };
      },
      get: (url) => caller.call('GET', url),
      post: (url, body) => caller.call('POST', url, body),
    };
    const { call, rpc } = mcpOf(caller);
    await call('mq9_create_mailbox', { name: 'j.box' });
    await call('mq9_send_message', { mail_address: 'j.box', payload: 'one' });
    a.engine.advance(1_000);
    await call('mq9_fetch_messages', { mail_address: 'j.box', group_name: 'g', reset_to: 'earliest' });
    await call('mq9_ack_message', { mail_address: 'j.box', group_name: 'g', msg_id: 0 });
    await rpc('tools/list');
    expect(writes.map((w) => JSON.parse(w.body!).params?.name)).toEqual(['mq9_create_mailbox', 'mq9_send_message', 'mq9_ack_message']);

    const b = build();
    await replayWrites(
      b,
      new AdminApp(b, { deviations: resolveDeviations(['mcp-server']) }),
      'A',
      writes.map((w) => journaled('api', w)),
      a.now(),
      'test',
    );
    expect(b.engine.trace.hash).toBe(a.engine.trace.hash);
    expect(b.mq9.messages.fetch({ mailAddress: 'j.box', group: 'g' })).toEqual([]);
  });
});
