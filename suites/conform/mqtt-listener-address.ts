import { isIP } from 'node:net';
import { type ConformContext, describeAnswer, envelopeOf, succeeded } from './conform-context.ts';

/**
 * Where the target's MQTT TCP listener may be, in every form the spec and the real server show it:
 * config get's `mqtt_server.tcp_port` (spec), `mqtt_runtime.server.tcp_port` (real server, notes
 * §4.1), and the node records' `extend.mqtt.mqtt_addr` ("host:port"; an object on the real server, a
 * JSON byte array in the spec's form) in `/api/info`, `/api/status` and the MQTT overview. The
 * `--mqtt HOST:PORT` flag replaces all of them.
 */

export interface HostPort {
  host: string;
  port: number;
}

/** A place to look for the listener, and which form named it (recorded in the capability). */
export interface MqttAddressCandidate extends HostPort {
  source: string;
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => x !== null && typeof x === 'object' && !Array.isArray(x);

function validPort(x: unknown): number | undefined {
  const n = typeof x === 'string' && /^\d+$/.test(x.trim()) ? Number(x) : x;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 65_535 ? n : undefined;
}

/** `host:port` or `[ipv6]:port`; undefined when it is neither. */
export function parseHostPort(text: string): HostPort | undefined {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(text.trim()) ?? /^([^:[\]\s]+):(\d+)$/.exec(text.trim());
  if (!m) return undefined;
  const port = validPort(m[2]);
  if (port === undefined) return undefined;
  if (m[0].startsWith('[') && isIP(m[1]) !== 6) return undefined;
  return { host: m[1], port };
}

/** `--mqtt HOST:PORT`; throws a message fit for a usage error. */
export function parseMqttFlag(value: string): HostPort {
  const hp = parseHostPort(value);
  if (!hp)
    throw new Error(
      `--mqtt must be HOST:PORT with a port from 1 to 65535 (e.g. 127.0.0.1:1883 or [::1]:1883), got ${JSON.stringify(value)}.`,
    );
  return hp;
}

/** The MQTT TCP ports a config get answer shows, spec form first. */
export function mqttPortsFromConfig(data: unknown): { port: number; source: string }[] {
  if (!isObj(data)) return [];
  const out: { port: number; source: string }[] = [];
  const spec = isObj(data.mqtt_server) ? validPort(data.mqtt_server.tcp_port) : undefined;
  if (spec !== undefined) out.push({ port: spec, source: 'config get mqtt_server.tcp_port' });
  const runtime = isObj(data.mqtt_runtime) && isObj(data.mqtt_runtime.server) ? validPort(data.mqtt_runtime.server.tcp_port) : undefined;
  if (runtime !== undefined) out.push({ port: runtime, source: 'config get mqtt_runtime.server.tcp_port' });
  return out;
}

/** A node record's `extend`: an object (real server), JSON bytes (the spec's "byte array") or JSON text. */
export function extendObject(extend: unknown): Obj | undefined {
  if (isObj(extend)) return extend;
  let text: string | undefined;
  if (typeof extend === 'string') text = extend;
  else if (Array.isArray(extend) && extend.every((b) => Number.isInteger(b) && b >= 0 && b <= 255))
    text = Buffer.from(extend as number[]).toString('utf8');
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isObj(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** `extend.mqtt.mqtt_addr` of every node record in a status/info (`broker_node_list`) or overview (`node_list`) answer. */
export function mqttAddrsFromNodes(data: unknown, where: string): MqttAddressCandidate[] {
  if (!isObj(data)) return [];
  const nodes = [data.broker_node_list, data.node_list].find(Array.isArray) as unknown[] | undefined;
  const out: MqttAddressCandidate[] = [];
  for (const node of nodes ?? []) {
    if (!isObj(node)) continue;
    const extend = extendObject(node.extend);
    const addr = isObj(extend?.mqtt) ? extend.mqtt.mqtt_addr : extend?.mqtt_addr;
    const hp = typeof addr === 'string' ? parseHostPort(addr) : undefined;
    if (hp) out.push({ ...hp, source: `node ${String(node.node_id ?? '?')} extend.mqtt.mqtt_addr in ${where}` });
  }
  return out;
}

/** An address a server binds to everywhere says nothing about where to reach it: use the target's host. */
const UNSPECIFIED = new Set(['0.0.0.0', '::', '']);

/**
 * The places to look for the listener, in order, reading the target lazily (the next source is asked
 * only when the earlier candidates did not work out). `--mqtt` replaces detection. `notes` collects
 * why a source gave nothing, for the capability's reason.
 */
export async function* mqttListenerCandidates(
  ctx: ConformContext,
  targetHost: string,
  notes: string[],
): AsyncGenerator<MqttAddressCandidate> {
  if (ctx.mqttAddress) {
    yield { ...ctx.mqttAddress, source: '--mqtt' };
    return;
  }
  const seen = new Set<string>();
  const fresh = (c: MqttAddressCandidate) => {
    const host = UNSPECIFIED.has(c.host) ? targetHost : c.host === 'localhost' ? '127.0.0.1' : c.host;
    const key = `${host}:${c.port}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    return { ...c, host };
  };

  const config = ctx.endpoint('GET', '/api/cluster/config/get');
  if (!config) notes.push('the contract has no config get to read the MQTT port from');
  else {
    const ex = await ctx.call(config, {}, 'fixture');
    const ports = succeeded(ex) ? mqttPortsFromConfig(envelopeOf(ex)?.data) : [];
    if (ports.length === 0)
      notes.push(`config get shows neither mqtt_server.tcp_port nor mqtt_runtime.server.tcp_port (${describeAnswer(ex)})`);
    for (const p of ports) {
      const c = fresh({ host: targetHost, ...p });
      if (c) yield c;
    }
  }

  let listed = 0;
  for (const path of ['/api/info', '/api/status', '/api/mqtt/overview']) {
    const e = ctx.endpoint('GET', path);
    if (!e) continue;
    const ex = await ctx.call(e, {}, 'fixture');
    const addrs = succeeded(ex) ? mqttAddrsFromNodes(envelopeOf(ex)?.data, `GET ${path}`) : [];
    listed += addrs.length;
    for (const a of addrs) {
      const c = fresh(a);
      if (c) yield c;
      // The node may name an address only reachable inside its network (a container's): try its port at the target's host too.
      const here = fresh({ ...a, host: targetHost, source: `${a.source}, port at the target's host` });
      if (here) yield here;
    }
  }
  if (listed === 0) notes.push('no node record (GET /api/info, /api/status, /api/mqtt/overview) shows extend.mqtt.mqtt_addr');
}
