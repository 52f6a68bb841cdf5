import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTRACT } from '../../contract/index.ts';
import { PacketReader } from '../targets/mqtt-wire-client.ts';
import { UrlTarget } from '../targets/url-target.ts';
import { detectCapabilities, LIST_DEADLINE_MS } from './checks/capabilities.ts';
import { ConformContext } from './conform-context.ts';
import {
  extendObject,
  mqttAddrsFromNodes,
  mqttListenerCandidates,
  mqttPortsFromConfig,
  parseHostPort,
  parseMqttFlag,
} from './mqtt-listener-address.ts';

const bytes = (value: unknown) => [...Buffer.from(JSON.stringify(value), 'utf8')];

describe('the MQTT listener address in every form the spec and the notes show', () => {
  it('reads host:port and --mqtt, refusing anything else with the expected form', () => {
    expect(parseHostPort('127.0.0.1:1883')).toEqual({ host: '127.0.0.1', port: 1883 });
    expect(parseHostPort('broker.local:8883')).toEqual({ host: 'broker.local', port: 8883 });
    expect(parseHostPort('[::1]:1883')).toEqual({ host: '::1', port: 1883 });
    for (const bad of ['1883', 'host:', 'host:0', 'host:65536', '::1:1883', '[nothost]:1883', 'a b:1'])
      expect(parseHostPort(bad), bad).toBeUndefined();
    expect(parseMqttFlag(' 10.0.0.5:1883 ')).toEqual({ host: '10.0.0.5', port: 1883 });
    expect(() => parseMqttFlag('1883')).toThrow(
      '--mqtt must be HOST:PORT with a port from 1 to 65535 (e.g. 127.0.0.1:1883 or [::1]:1883), got "1883".',
    );
  });

  it("config get: the spec's mqtt_server.tcp_port and the real server's mqtt_runtime.server.tcp_port", () => {
    expect(mqttPortsFromConfig({ mqtt_server: { tcp_port: 1883, tls_port: 1885 } })).toEqual([
      { port: 1883, source: 'config get mqtt_server.tcp_port' },
    ]);
    expect(mqttPortsFromConfig({ mqtt_runtime: { server: { tcp_port: 11883 }, keep_alive: {} } })).toEqual([
      { port: 11883, source: 'config get mqtt_runtime.server.tcp_port' },
    ]);
    expect(
      mqttPortsFromConfig({ mqtt_server: { tcp_port: '1883' }, mqtt_runtime: { server: { tcp_port: 1884 } } }).map((p) => p.port),
    ).toEqual([1883, 1884]);
    // mqtt_runtime in the spec's form has no server section; ports out of range say nothing.
    expect(mqttPortsFromConfig({ mqtt_runtime: { default_user: 'admin' }, mqtt_server: { tcp_port: 0 } })).toEqual([]);
    expect(mqttPortsFromConfig('')).toEqual([]);
  });

  it('node records: extend as an object (real server), JSON bytes (spec) or JSON text, in broker_node_list or node_list', () => {
    const ext = {
      mqtt: { grpc_addr: '10.0.0.1:1228', mqtt_addr: '10.0.0.1:1883', mqtts_addr: '10.0.0.1:1885' },
      nats: { tcp_addr: '10.0.0.1:4222' },
    };
    expect(extendObject(ext)).toBe(ext);
    expect(extendObject(bytes(ext))).toEqual(ext);
    expect(extendObject(JSON.stringify(ext))).toEqual(ext);
    expect(extendObject([256, 1])).toBeUndefined();
    expect(extendObject([])).toBeUndefined();
    const info = {
      broker_node_list: [
        { node_id: 1, extend: ext },
        { node_id: 2, extend: bytes({ mqtt: { mqtt_addr: '0.0.0.0:1893' } }) },
        { node_id: 3, extend: [] },
      ],
    };
    expect(mqttAddrsFromNodes(info, 'GET /api/info')).toEqual([
      { host: '10.0.0.1', port: 1883, source: 'node 1 extend.mqtt.mqtt_addr in GET /api/info' },
      { host: '0.0.0.0', port: 1893, source: 'node 2 extend.mqtt.mqtt_addr in GET /api/info' },
    ]);
    expect(
      mqttAddrsFromNodes({ node_list: [{ node_id: 7, extend: JSON.stringify({ mqtt_addr: 'h:1' }) }] }, 'GET /api/mqtt/overview'),
    ).toEqual([{ host: 'h', port: 1, source: 'node 7 extend.mqtt.mqtt_addr in GET /api/mqtt/overview' }]);
  });
});

/**
 * Detection against a real HTTP server and a real TCP listener: a small broker that acknowledges
 * CONNECT and PUBLISH and tells the admin side which clients it has seen, so the "is this listener
 * the target's?" probe can succeed.
 */
const servers: (Server | TcpServer)[] = [];
const sockets = new Set<Socket>();
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

async function broker(clients: Set<string>): Promise<number> {
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const reader = new PacketReader();
    socket.on('data', (chunk: Buffer) => {
      for (const p of reader.push(chunk)) {
        if (p.type === 1) {
          // CONNECT: protocol name (2 + 4), level, flags, keep-alive, then the client id.
          const len = p.body.readUInt16BE(10);
          clients.add(p.body.subarray(12, 12 + len).toString('utf8'));
          socket.write(Buffer.from([0x20, 0x02, 0x00, 0x00]));
        }
        if (p.type === 3 && (p.flags & 0x06) !== 0) {
          const topicLength = p.body.readUInt16BE(0);
          socket.write(Buffer.from([0x40, 0x02, p.body[2 + topicLength], p.body[3 + topicLength]]));
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

const ok = (data: unknown) => JSON.stringify({ code: 0, data, error: null });

/** An admin API answering config get and /api/info as given, and the client list from what the broker saw. */
async function adminApi(clients: Set<string>, answers: { config?: unknown; info?: unknown }): Promise<string> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const path = (req.url ?? '').split('?')[0];
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    if (path === '/api/cluster/config/get') return res.end(ok(answers.config ?? {}));
    if (path === '/api/info') return res.end(ok(answers.info ?? { broker_node_list: [] }));
    if (path === '/api/mqtt/client/list')
      return res.end(ok({ data: [...clients].map((client_id) => ({ client_id })), total_count: clients.size }));
    res.end(ok({ data: [], total_count: 0 }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function detect(url: string, mqttAddress?: { host: string; port: number }) {
  const target = await UrlTarget.create({ url, timeoutMs: 2000 });
  try {
    const ctx = new ConformContext(target, 9, CONTRACT);
    if (mqttAddress) ctx.mqttAddress = mqttAddress;
    const notes = await detectCapabilities(ctx);
    return { listener: ctx.capabilities!.mqttListener, notes, ctx };
  } finally {
    await target.close();
  }
}

async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe('MQTT listener detection against a server', () => {
  it("finds the listener under the real server's mqtt_runtime.server.tcp_port and records the source", async () => {
    const clients = new Set<string>();
    const port = await broker(clients);
    const { listener, notes } = await detect(await adminApi(clients, { config: { mqtt_runtime: { server: { tcp_port: port } } } }));
    expect(listener).toEqual({ available: true, address: `127.0.0.1:${port}`, source: 'config get mqtt_runtime.server.tcp_port' });
    expect(notes).toContain(`capability MQTT listener: available at 127.0.0.1:${port} (from config get mqtt_runtime.server.tcp_port)`);
  });

  it("falls back to a node record's extend.mqtt.mqtt_addr when the config port is closed", async () => {
    const clients = new Set<string>();
    const port = await broker(clients);
    const closed = await closedPort();
    const info = { broker_node_list: [{ node_id: 1, extend: { mqtt: { mqtt_addr: `127.0.0.1:${port}` } } }] };
    const { listener } = await detect(await adminApi(clients, { config: { mqtt_server: { tcp_port: closed } }, info }));
    expect(listener).toEqual({ available: true, address: `127.0.0.1:${port}`, source: 'node 1 extend.mqtt.mqtt_addr in GET /api/info' });
  });

  it('--mqtt replaces detection; without any address the reason names --mqtt', async () => {
    const clients = new Set<string>();
    const port = await broker(clients);
    const url = await adminApi(clients, {});
    expect((await detect(url, { host: '127.0.0.1', port })).listener).toEqual({
      available: true,
      address: `127.0.0.1:${port}`,
      source: '--mqtt',
    });
    const none = (await detect(url)).listener;
    expect(none.available).toBe(false);
    expect(none.reason).toBe(
      'no MQTT listener address found: config get shows neither mqtt_server.tcp_port nor mqtt_runtime.server.tcp_port (HTTP 200, code 0); no node record (GET /api/info, /api/status, /api/mqtt/overview) shows extend.mqtt.mqtt_addr; give the listener with --mqtt HOST:PORT',
    );
  });

  it('asks the node lists only when the config port did not work out', async () => {
    const clients = new Set<string>();
    const port = await broker(clients);
    const url = await adminApi(clients, { config: { mqtt_server: { tcp_port: port } } });
    const target = await UrlTarget.create({ url });
    try {
      const ctx = new ConformContext(target, 9, CONTRACT);
      const first = await mqttListenerCandidates(ctx, '127.0.0.1', []).next();
      expect(first.value).toEqual({ host: '127.0.0.1', port, source: 'config get mqtt_server.tcp_port' });
      expect(ctx.log.exchanges.map((x) => x.record.path)).toEqual(['/api/cluster/config/get']);
    } finally {
      await target.close();
    }
  });

  it('a client the target lists only a while after its connect is still found; one it never lists marks another broker', async () => {
    // The broker sees the probe client at once; this target's list shows it 1.2 s later.
    const seen = new Set<string>();
    const listed = new Set<string>();
    const port = await broker(seen);
    const copy = setInterval(() => {
      for (const c of seen) setTimeout(() => listed.add(c), 1200);
      seen.clear();
    }, 20);
    try {
      const late = await detect(await adminApi(listed, { config: { mqtt_server: { tcp_port: port } } }));
      expect(late.listener).toMatchObject({ available: true, address: `127.0.0.1:${port}` });
    } finally {
      clearInterval(copy);
    }
    // Another broker at the named port: its client never shows, and the probe says so after the deadline.
    const foreign = await broker(new Set<string>());
    const start = performance.now();
    const other = await detect(await adminApi(new Set<string>(), { config: { mqtt_server: { tcp_port: foreign } } }));
    expect(performance.now() - start).toBeGreaterThanOrEqual(LIST_DEADLINE_MS);
    expect(other.listener.available).toBe(false);
    expect(other.listener.reason).toContain(`a client connected to 127.0.0.1:${foreign} and published there, but neither`);
  }, 20_000);
});
