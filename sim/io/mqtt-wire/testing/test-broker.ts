import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { startClusterServer, type ClusterServerOptions, type RunningCluster } from '../../serve/cluster-server.ts';

/**
 * Test helpers: `mqsim serve` in-process with its MQTT listeners on ephemeral 127.0.0.1 ports, and
 * mqtt.js clients for it. Never port 1883: a real Mosquitto listens there on this machine.
 */

export interface TestBroker {
  running: RunningCluster;
  /** MQTT port of node `id` (1-based). */
  port(nodeId?: number): number;
  /** GET on the admin API of node 1; the parsed envelope. */
  api(path: string): Promise<any>;
  post(path: string, body: unknown): Promise<any>;
  /** Sets a run-time config section through the API, as an operator would. */
  config(configType: string, fields: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export async function startTestBroker(options: Partial<ClusterServerOptions> = {}): Promise<TestBroker> {
  const running = await startClusterServer({
    seed: 5,
    nodes: 3,
    workload: 'none',
    port: 0,
    mqttPort: 0,
    secretFreeLogin: true,
    ...options,
  });
  const api = async (path: string): Promise<any> => (await fetch(running.baseUrl + path)).json();
  const post = async (path: string, body: unknown): Promise<any> =>
    (
      await fetch(running.baseUrl + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    ).json();
  return {
    running,
    port: (nodeId = 1) => running.mqtt!.ports[nodeId - 1],
    api,
    post,
    async config(configType, fields) {
      const res = await post('/api/cluster/config/set', { config_type: configType, config: JSON.stringify(fields) });
      if (res.code !== 0) throw new Error(`config set ${configType}: ${JSON.stringify(res)}`);
    },
    close: () => running.close(),
  };
}

/** Connects an mqtt.js client (no automatic reconnect); rejects with the CONNACK's error when refused. */
export function connectClient(port: number, options: IClientOptions = {}): Promise<MqttClient> {
  return mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0, connectTimeout: 5_000, protocolVersion: 4, ...options });
}

/** The error code an mqtt.js connect was refused with (CONNACK return or reason code). */
export async function connectRefusal(port: number, options: IClientOptions = {}): Promise<number | string> {
  try {
    const c = await connectClient(port, options);
    await c.endAsync();
    return 'connected';
  } catch (e) {
    return (e as { code?: number }).code ?? String(e);
  }
}

/** Resolves with the next `n` messages a client receives (topic, payload text, packet). */
export function nextMessages(client: MqttClient, n: number, timeoutMs = 3_000): Promise<{ topic: string; payload: Buffer; packet: any }[]> {
  return new Promise((resolve, reject) => {
    const got: { topic: string; payload: Buffer; packet: any }[] = [];
    const timer = setTimeout(() => {
      client.off('message', on);
      reject(new Error(`expected ${n} message(s), got ${got.length}: ${got.map((m) => `${m.topic}=${m.payload}`).join(', ')}`));
    }, timeoutMs);
    const on = (topic: string, payload: Buffer, packet: unknown) => {
      got.push({ topic, payload, packet });
      if (got.length === n) {
        clearTimeout(timer);
        client.off('message', on);
        resolve(got);
      }
    };
    client.on('message', on);
  });
}

/** Waits until `check` holds (polling), or fails with what it last saw. */
export async function eventually<T>(read: () => Promise<T> | T, check: (v: T) => boolean, timeoutMs = 3_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: T = await read();
  while (!check(last)) {
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
    last = await read();
  }
  return last;
}
