import type { Cluster } from '../cluster/cluster.ts';
import type { DeliverySink, MessageExtras, PendingMessage } from '../mqtt/delivery.ts';
import type { ConnectResult, PublishResult, SubscribeResult } from '../mqtt/broker-api.ts';
import type { ProtocolVersion, QoS, RetainHandling } from '../mqtt/mqtt-labels.ts';
import type { LastWill } from '../mqtt/mqtt-model.ts';

/**
 * The model operations a network connection performs, as data. The listener applies each one with
 * `applyWireOp` and journals it (`mqsim serve --state`) with the virtual time it ran at; a restart
 * replays the journal through the very same function and checks each op answers as it did. So this
 * module, like the model, reads no wall clock and draws no randomness: everything that came from the
 * socket (peer address, assigned client id, credentials already checked) is in the op.
 */

export interface ConnectOp {
  op: 'connect';
  node: number;
  tenant: string;
  clientId: string;
  username: string;
  ip: string;
  port: number;
  protocol: ProtocolVersion;
  cleanStart: boolean;
  sessionExpiry: number;
  keepAlive: number;
  lastWill: LastWill | null;
  /** What an MQTT 5 client announced (Receive Maximum, Maximum Packet Size, Topic Alias Maximum), for its record. */
  receiveMaximum?: number;
  maxPacketSize?: number;
  topicAliasMax?: number;
}

export interface WireSubscription {
  path: string;
  qos: QoS;
  noLocal: boolean;
  retainAsPublished: boolean;
  retainHandling: RetainHandling;
}

interface SubscribeOp {
  op: 'subscribe';
  tenant: string;
  clientId: string;
  connectionId: number;
  subscriptions: WireSubscription[];
  subscriptionIdentifier: number | null;
  userProperties: { key: string; value: string }[];
}

interface UnsubscribeOp {
  op: 'unsubscribe';
  tenant: string;
  clientId: string;
  connectionId: number;
  paths: string[];
}

interface PublishOp {
  op: 'publish';
  tenant: string;
  clientId: string;
  connectionId: number;
  topic: string;
  payload: string;
  qos: QoS;
  retain: boolean;
  extras?: MessageExtras;
}

/** The connection ended: a DISCONNECT (`clean`, unless MQTT 5 reason 0x04), or lost (socket closed, keep-alive, protocol error). */
export interface DisconnectOp {
  op: 'disconnect';
  tenant: string;
  clientId: string;
  connectionId: number;
  clean: boolean;
  /** Session expiry an MQTT 5 DISCONNECT sets. */
  sessionExpiry?: number;
  /** QoS 1/2 messages the connection had not finished delivering. */
  keep: PendingMessage[];
  /** Why, for the journal's reader (not used by the model). */
  why: string;
}

/** Messages a connection the broker closed (takeover, node offline) had not finished delivering. */
interface RequeueOp {
  op: 'requeue';
  tenant: string;
  clientId: string;
  messages: PendingMessage[];
}

export type WireOp = ConnectOp | SubscribeOp | UnsubscribeOp | PublishOp | DisconnectOp | RequeueOp;

type UnsubscribeAnswer = { ok: true; removed: boolean[] } | { ok: false; reason: string };
export type DisconnectAnswer = { ok: boolean };
type RequeueAnswer = { taken: number };

export type WireOpAnswer<T extends WireOp> = T extends ConnectOp
  ? ConnectResult
  : T extends SubscribeOp
    ? SubscribeResult[]
    : T extends UnsubscribeOp
      ? UnsubscribeAnswer
      : T extends PublishOp
        ? PublishResult
        : T extends DisconnectOp
          ? DisconnectAnswer
          : RequeueAnswer;

const notThisConnection = (cluster: Cluster, op: { tenant: string; clientId: string; connectionId: number }): string | undefined => {
  const conn = cluster.mqtt.client(op.tenant, op.clientId)?.connection;
  if (conn && conn.connectionId === op.connectionId) return undefined;
  return `connection ${op.connectionId} of client ${op.clientId} (tenant ${op.tenant}) is no longer connected`;
};

/**
 * Applies one op to the model. `sink` is the live connection's delivery sink (absent in a replay,
 * where the socket is long gone). Ops of a connection that is no longer the client's current one are
 * refused, so a late packet of a taken-over connection cannot act for its successor.
 */
export function applyWireOp<T extends WireOp>(cluster: Cluster, op: T, sink?: DeliverySink): WireOpAnswer<T>;
export function applyWireOp(cluster: Cluster, op: WireOp, sink?: DeliverySink): unknown {
  const mqtt = cluster.mqtt;
  switch (op.op) {
    case 'connect':
      return mqtt.connect({
        tenant: op.tenant,
        clientId: op.clientId,
        username: op.username,
        ip: op.ip,
        port: op.port,
        connectionType: 'Tcp',
        protocol: op.protocol,
        cleanStart: op.cleanStart,
        sessionExpiry: op.sessionExpiry,
        keepAlive: op.keepAlive,
        lastWill: op.lastWill,
        nodeId: op.node,
        networkClient: true,
        mqtt5Session: op.protocol === 5,
        ...(op.receiveMaximum !== undefined ? { receiveMaximum: op.receiveMaximum } : {}),
        ...(op.maxPacketSize !== undefined ? { maxPacketSize: op.maxPacketSize } : {}),
        ...(op.topicAliasMax !== undefined ? { topicAliasMax: op.topicAliasMax } : {}),
        ...(sink ? { sink } : {}),
      });
    case 'subscribe': {
      const stale = notThisConnection(cluster, op);
      return op.subscriptions.map((s): SubscribeResult => {
        if (stale) return { ok: false, reason: stale, refusal: 'not-connected' };
        return mqtt.subscribe({
          tenant: op.tenant,
          clientId: op.clientId,
          path: s.path,
          qos: s.qos,
          noLocal: s.noLocal,
          preserveRetain: s.retainAsPublished,
          retainHandling: s.retainHandling,
          subscriptionIdentifier: op.subscriptionIdentifier,
          userProperties: op.userProperties,
        });
      });
    }
    case 'unsubscribe': {
      const stale = notThisConnection(cluster, op);
      if (stale) return { ok: false, reason: stale };
      return { ok: true, removed: op.paths.map((path) => mqtt.unsubscribe({ tenant: op.tenant, clientId: op.clientId, path })) };
    }
    case 'publish': {
      const stale = notThisConnection(cluster, op);
      if (stale) return { ok: false, reason: stale, refusal: 'not-connected' };
      return mqtt.publish({
        tenant: op.tenant,
        clientId: op.clientId,
        topic: op.topic,
        payload: op.payload,
        qos: op.qos,
        retain: op.retain,
        ...(op.extras ? { extras: op.extras } : {}),
      });
    }
    case 'disconnect':
      return {
        ok: mqtt.disconnect(op.clientId, op.tenant, {
          clean: op.clean,
          connectionId: op.connectionId,
          keep: op.keep,
          ...(op.sessionExpiry !== undefined ? { sessionExpiry: op.sessionExpiry } : {}),
        }),
      };
    case 'requeue':
      return { taken: mqtt.requeue(op.tenant, op.clientId, op.messages) };
  }
}

/**
 * Network connections the model still holds although no socket can be behind them (after a
 * restart from a state file): each is closed as lost, so wills are published and session expiry
 * runs. Returns the ops applied, for the journal.
 */
export function dropNetworkConnections(cluster: Cluster): { op: DisconnectOp; answer: DisconnectAnswer }[] {
  const done: { op: DisconnectOp; answer: DisconnectAnswer }[] = [];
  for (const client of [...cluster.mqtt.allClients()]) {
    if (!client.networkClient || !client.connection) continue;
    const op: DisconnectOp = {
      op: 'disconnect',
      tenant: client.tenant,
      clientId: client.clientId,
      connectionId: client.connection.connectionId,
      clean: false,
      keep: [],
      why: 'restart',
    };
    done.push({ op, answer: applyWireOp(cluster, op) });
  }
  return done;
}

/** Byte arrays in JSON: `{"$bytes": "<base64>"}` (payloads, correlation data). */
const BYTES = '$bytes';

/** The op as journal text. */
export function encodeWireOp(op: WireOp): string {
  // The holder's own value, not `value`: a Buffer has already been through its toJSON by then.
  return JSON.stringify(op, function (this: Record<string, unknown>, key: string, value: unknown) {
    const original = this[key];
    return original instanceof Uint8Array
      ? { [BYTES]: Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString('base64') }
      : value;
  });
}

/** An op from journal text; throws on anything that is not one. */
export function decodeWireOp(text: string): WireOp {
  const op = JSON.parse(text, (_key, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const keys = Object.keys(value);
      const b = (value as Record<string, unknown>)[BYTES];
      if (keys.length === 1 && typeof b === 'string') return Buffer.from(b, 'base64');
    }
    return value;
  }) as WireOp;
  if (
    !op ||
    typeof op !== 'object' ||
    !['connect', 'subscribe', 'unsubscribe', 'publish', 'disconnect', 'requeue'].includes((op as { op?: string }).op ?? '')
  ) {
    throw new Error(`not an MQTT listener operation: ${text.slice(0, 80)}`);
  }
  return op;
}

/** The answer as the journal digests it: JSON of the model's result. */
export const wireAnswerText = (answer: unknown): string => JSON.stringify(answer);
