import type { EndpointContract } from '../../../contract/core/types.ts';
import { openSocket, wireMqttDriver } from '../../targets/mqtt-wire-client.ts';
import { type Capability, isLoopbackV4 } from '../../targets/target.ts';
import { A } from '../cite.ts';
import {
  type ConformContext,
  type DetectedCapabilities,
  describeAnswer,
  envelopeOf,
  fail,
  pass,
  skip,
  succeeded,
} from '../conform-context.ts';
import { mqttListenerCandidates } from '../mqtt-listener-address.ts';

/** The spec's exempt addresses, for messages. */
const SPEC_EXEMPT = 'the spec exempts only 127.0.0.1 and ::1';

/** Endpoints the exemption probe may ask, best first: harmless token reads without required parameters. */
function probeCandidates(ctx: ConformContext): EndpointContract[] {
  const reads = ctx.contract.filter(
    (e) => e.method === 'GET' && e.auth === 'token' && e.path.startsWith('/api/') && !e.params.some((p) => p.required),
  );
  const first = [ctx.endpoint('GET', '/api/status'), ctx.endpoint('GET', '/api/info'), ctx.endpoint('GET', '/api/cluster/tenant/list')];
  return [...new Set([...first, ...reads].filter((e): e is EndpointContract => e !== undefined && e.auth === 'token'))].slice(0, 5);
}

/**
 * The token endpoint the exemption probe asks: the first candidate the target serves to the run
 * itself. A probe on a route the target lacks (the real server removed /api/status) would show no
 * exemption whatever the target exempts. Chosen once per run.
 */
function probeEndpoint(ctx: ConformContext): Promise<EndpointContract | undefined> {
  ctx.exemptionProbe ??= (async () => {
    for (const e of probeCandidates(ctx)) {
      const ex = await ctx.send({ method: e.method, path: e.path }, 'auth', e.id);
      if (ex.response && succeeded(ex)) return e;
    }
    return undefined;
  })();
  return ctx.exemptionProbe;
}

async function probeExemption(ctx: ConformContext): Promise<Pick<DetectedCapabilities, 'authChecks' | 'exemptPeer'>> {
  const remote = ctx.target.capabilities.remotePeer;
  if (!remote.available) return { authChecks: { available: false, reason: `no non-loopback peer: ${remote.reason ?? 'unavailable'}` } };
  // Only a loopback address of the run can be wrongly exempted; a target answering a truly remote
  // peer (a remote URL, or this host's own non-loopback address) without a token fails the auth checks.
  const via = ctx.target.capabilities.remoteVia;
  if (!ctx.target.capabilities.loopback || (via && (via.baseUrl !== undefined || !isLoopbackV4(via.address))))
    return { authChecks: { available: true } };
  const peer = via?.address ?? '127.0.0.2';
  const e = await probeEndpoint(ctx);
  if (!e) return { authChecks: { available: true } };
  const ex = await ctx.send({ method: e.method, path: e.path, asRemotePeer: true, auth: 'none' }, 'auth', e.id);
  if (ex.response && succeeded(ex)) {
    return {
      authChecks: {
        available: false,
        reason: `target exempts ${peer} from authentication (${SPEC_EXEMPT}); to run the auth checks give --peer-address ADDR, an address of this host the target does not exempt`,
      },
      exemptPeer: peer,
    };
  }
  return { authChecks: { available: true } };
}

/** How long the probe client may take to show in the target's lists, and how often they are asked meanwhile. */
export const LIST_DEADLINE_MS = 3000;
const LIST_POLL_MS = 100;

/**
 * Is the listener at host:port the target's? Another broker may listen on the port the target only
 * names (the embedded simulator's ports are nominal; a developer machine runs mosquitto on 1883). A
 * probe client connects and publishes; the target's client list or topic list must show it. Returns
 * why not, or the tenant the probe client landed in (its record's `tenant`, when shown).
 */
async function listenerIsTargets(ctx: ConformContext, host: string, port: number): Promise<{ notTargets: string } | { tenant?: string }> {
  const driver = wireMqttDriver({ host, port, timeoutMs: 2000 });
  const clientId = `conform-${ctx.seed}-probe`;
  const topic = `conform/${ctx.seed}/probe`;
  const session = await driver.connect(clientId);
  if ('ok' in session) return { notTargets: `the MQTT listener at ${host}:${port} refused a client: ${session.reason}` };
  /** The record of a list answer that names `key` as `field`, and its tenant. */
  const tenantIn = (data: unknown, field: string, key: string): { found: boolean; tenant?: string } => {
    const rows = (data as { data?: unknown } | undefined)?.data;
    const row = Array.isArray(rows) ? (rows as Record<string, unknown>[]).find((r) => r?.[field] === key) : undefined;
    if (row) return typeof row.tenant === 'string' ? { found: true, tenant: row.tenant } : { found: true };
    return { found: JSON.stringify(data ?? '').includes(key) };
  };
  try {
    await session.publish(topic, 'mqsim conform probe', { qos: 1, retain: false });
    const clients = ctx.endpoint('GET', '/api/mqtt/client/list');
    const topics = ctx.endpoint('GET', '/api/cluster/topic/list');
    // Asked again every LIST_POLL_MS until LIST_DEADLINE_MS have passed: `mqsim serve` lists a
    // connection once it has acknowledged it, so its listener shows at the first ask; a server whose
    // lists lag (the reference server's own tests give its lists 0.5-2 s after a write) is still seen
    // within the deadline. Only another broker's listener costs the whole wait.
    const start = performance.now();
    for (;;) {
      if (clients) {
        const seen = tenantIn(envelopeOf(await ctx.call(clients, { client_id: clientId }, 'fixture'))?.data, 'client_id', clientId);
        if (seen.found) return seen.tenant !== undefined ? { tenant: seen.tenant } : {};
      }
      if (topics) {
        const seen = tenantIn(envelopeOf(await ctx.call(topics, { topic_name: topic }, 'fixture'))?.data, 'topic_name', topic);
        if (seen.found) return seen.tenant !== undefined ? { tenant: seen.tenant } : {};
      }
      const left = LIST_DEADLINE_MS - (performance.now() - start);
      if (left <= 0) break;
      await new Promise((r) => setTimeout(r, Math.min(LIST_POLL_MS, left)));
    }
    return {
      notTargets: `a client connected to ${host}:${port} and published there, but neither the target's client list nor its topic list shows it: the listener is not the target's`,
    };
  } finally {
    await session.close();
  }
}

async function probeMqttListener(
  ctx: ConformContext,
): Promise<{ listener: DetectedCapabilities['mqttListener']; host?: string; port?: number; tenant?: string }> {
  if (ctx.mqttListenerNone) return { listener: { available: false, reason: 'the target has no MQTT listener (--mqtt none)' } };
  // The embedded simulator (--target sim) runs without sockets: its mqtt_server ports are nominal and
  // something else may answer there. (`mqsim serve --mqtt-port` does listen: --target URL detects it.)
  if (ctx.target.control && !ctx.mqttAddress)
    return {
      listener: {
        available: false,
        reason:
          'the embedded simulator runs without an MQTT listener (its mqtt_server ports are nominal; mqsim serve --mqtt-port serves one)',
      },
    };
  let targetHost: string;
  try {
    targetHost = new URL(ctx.target.baseUrl).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return { listener: { available: false, reason: `cannot tell the MQTT host from ${ctx.target.baseUrl}` } };
  }
  if (targetHost === 'localhost') targetHost = '127.0.0.1';
  const unreachable: string[] = [];
  const others: string[] = [];
  const notes: string[] = [];
  for await (const c of mqttListenerCandidates(ctx, targetHost, notes)) {
    const socket = await openSocket(c.host, c.port, 1000);
    if (typeof socket === 'string') {
      unreachable.push(`${socket} (${c.source})`);
      continue;
    }
    socket.destroy();
    const verdict = await listenerIsTargets(ctx, c.host, c.port);
    if ('notTargets' in verdict) {
      others.push(`${verdict.notTargets} (${c.source})`);
      continue;
    }
    return {
      listener: { available: true, address: `${c.host}:${c.port}`, source: c.source },
      host: c.host,
      port: c.port,
      ...(verdict.tenant !== undefined ? { tenant: verdict.tenant } : {}),
    };
  }
  const found = [...(unreachable.length ? [`no MQTT listener answers: ${unreachable.join('; ')}`] : []), ...others];
  const why = found.length ? found.join('; ') : `no MQTT listener address found: ${notes.join('; ')}`;
  return { listener: { available: false, reason: `${why}; give the listener with --mqtt HOST:PORT` } };
}

/**
 * Finds out what the target offers before the checks run: a non-exempt peer for the auth checks,
 * the simulator's control interface, an MQTT listener. Fills `ctx.capabilities` and `ctx.mqtt`, and
 * returns one note per missing capability.
 */
export async function detectCapabilities(ctx: ConformContext): Promise<string[]> {
  return (await startDetection(ctx)).finish();
}

/** What the MQTT parts of `ctx.capabilities` say until the listener probe has finished. */
const MQTT_NOT_PROBED_YET: Capability = { available: false, reason: 'the MQTT listener probe has not finished' };

/**
 * Detection in two steps. The exemption probe is awaited: the auth checks need its answer, and
 * `ctx.capabilities` is set with it (its MQTT parts MQTT_NOT_PROBED_YET). The MQTT listener probe —
 * up to LIST_DEADLINE_MS when another broker answers at a port the target names — goes on meanwhile;
 * `finish` waits for it, sets the MQTT parts and `ctx.mqtt`, and returns the notes. Until then
 * nothing may act as an MQTT client or read the MQTT parts (the runner holds those families back).
 */
export async function startDetection(ctx: ConformContext): Promise<{ finish: () => Promise<string[]> }> {
  const remotePeer: Capability = ctx.target.capabilities.remotePeer;
  const exemption = await probeExemption(ctx);
  const control: Capability = ctx.target.control
    ? { available: true }
    : { available: false, reason: 'the target has no simulator control interface (only --target sim has one)' };
  ctx.capabilities = { remotePeer, ...exemption, control, mqttListener: MQTT_NOT_PROBED_YET, mqttClient: MQTT_NOT_PROBED_YET };
  // Settled (never rejected) so an unawaited probe cannot end the process; `finish` throws its error.
  const probing = probeMqttListener(ctx).then(
    (mqtt) => ({ mqtt }),
    (error: unknown) => ({ error }),
  );
  const finish = async (): Promise<string[]> => {
    const settled = await probing;
    if ('error' in settled) throw settled.error;
    return mqttCapabilities(ctx, settled.mqtt);
  };
  return { finish };
}

function mqttCapabilities(ctx: ConformContext, mqtt: Awaited<ReturnType<typeof probeMqttListener>>): string[] {
  let mqttClient: DetectedCapabilities['mqttClient'];
  if (mqtt.listener.available && mqtt.host && mqtt.port) {
    ctx.mqtt = wireMqttDriver({ host: mqtt.host, port: mqtt.port, ...(mqtt.tenant !== undefined ? { tenant: mqtt.tenant } : {}) });
    mqttClient = { available: true, via: ctx.mqtt.via };
  } else if (ctx.target.control) {
    ctx.mqtt = ctx.target.control.mqtt(ctx.names.tenant);
    mqttClient = { available: true, via: ctx.mqtt.via };
  } else {
    mqttClient = {
      available: false,
      reason: `${mqtt.listener.reason ?? 'no MQTT listener'}; and no simulator control interface to act as a client`,
    };
  }
  const caps = { ...ctx.capabilities!, mqttListener: mqtt.listener, mqttClient };
  ctx.capabilities = caps;
  const notes: string[] = [];
  const line = (name: string, c: Capability, extra = '') =>
    `capability ${name}: ${c.available ? `available${extra}` : `unavailable — ${c.reason}`}`;
  notes.push(line('non-loopback peer (auth checks)', caps.authChecks));
  notes.push(line('simulator control interface', caps.control));
  notes.push(
    line('MQTT listener', mqtt.listener, mqtt.listener.address ? ` at ${mqtt.listener.address} (from ${mqtt.listener.source})` : ''),
  );
  notes.push(line('MQTT client for checks', mqttClient, mqttClient.via ? ` via ${mqttClient.via}` : ''));
  return notes;
}

/**
 * The wider exemption as one finding of its own (spec, Authentication rule 2: "A request from any
 * other address must carry the header" — only 127.0.0.1 and ::1 are exempt, so a target that answers
 * 127.0.0.2 without a token breaks a MUST; the real server exempts all of 127.0.0.0/8). Sent from the
 * target's loopback peer (127.0.0.2, or the remote peer when that is a loopback address) whatever peer
 * the other auth checks use: with a non-loopback remote peer both exemptions are checked in one run,
 * each by its own checks. Pass when the loopback peer without a token is refused, fail when answered.
 * When the loopback peer is the auth checks' own, they are skipped with that reason (or run from
 * --peer-address), so the cause is named once.
 */
export async function runLoopbackExemptionCheck(ctx: ConformContext, on: EndpointContract): Promise<void> {
  await ctx.check(on, 'auth.loopback-exemption', A.authRemoteToken, async () => {
    const caps = ctx.capabilities;
    if (!caps) return skip('capabilities were not detected');
    const { loopback, loopbackPeer: peer, remoteVia: via } = ctx.target.capabilities;
    if (!loopback) return skip('the target is not reached over loopback, so no loopback exemption can show');
    if (!peer)
      return skip('no loopback address other than 127.0.0.1 can be sent from (127.0.0.2 cannot be bound), so no wider exemption can show');
    const e = (await probeEndpoint(ctx)) ?? (on.auth === 'token' && on.method === 'GET' ? on : undefined);
    if (!e) return skip('no token endpoint to probe');
    // The auth checks' own peer: its exemption was probed already, and the checks skipped for it.
    const ownPeer = via !== undefined && via.baseUrl === undefined && via.address === peer;
    const ex = await ctx.send({ method: e.method, path: e.path, asLoopbackPeer: true, auth: 'none' }, 'auth', e.id);
    if (!ex.response) return skip(`the probe got no answer: ${ex.error}`);
    if ((ownPeer && caps.exemptPeer) || succeeded(ex)) {
      return fail(
        `${e.method} ${e.path} from ${peer} without a token was answered (${describeAnswer(ex)}): the target exempts more peers than the spec (${SPEC_EXEMPT}); ${ownPeer ? 'auth checks from that peer are skipped' : `the other auth checks run from ${via?.address ?? 'the remote peer'}`}`,
        ex,
      );
    }
    if (ex.response.status === 401)
      return pass(`${peer} without a token gets ${describeAnswer(ex)}: only the spec's loopback addresses are exempt`);
    return skip(`${peer} without a token got ${describeAnswer(ex)}, which shows neither an exemption nor a refusal`);
  });
}
