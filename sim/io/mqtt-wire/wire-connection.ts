import type { Socket } from 'node:net';
import mqttPacket, {
  type IConnectPacket,
  type IDisconnectPacket,
  type IPublishPacket,
  type ISubscribePacket,
  type IUnsubscribePacket,
  type Packet,
} from 'mqtt-packet';
import type { Cluster } from '../../model/cluster/cluster.ts';
import { staticNodeConfig } from '../../model/nodes/static-node-config.ts';
import type { ConnectionCloseReason, DeliverySink, OutgoingMessage, PendingMessage } from '../../model/mqtt/delivery.ts';
import type { ProtocolVersion, QoS, RetainHandling } from '../../model/mqtt/mqtt-labels.ts';
import { clientKey } from '../../model/mqtt/mqtt-model.ts';
import { topicNameProblem } from '../../model/topic-filter/topic-filter.ts';
import type { Login } from './login.ts';
import { OutboundFlow, type Send } from './outbound-flow.ts';
import { payloadFormatBroken, readPublish, userPropertyList, type ConnectRequest } from './packet-mapping.ts';
import { checkConnect, connackProperties, connectOp, grantConnect, type CheckedConnect, type ConnectTerms } from './connect-checks.ts';
import { encodeAck, encodeConnackV3, type PublishEncoder } from './publish-encoding.ts';
import { ackPacketId, plainAckKind, readEmptyPacket, readPlainConnect, readPlainPublish } from './fast-packets.ts';
import { FrameReader, type FrameSink } from './frame-reader.ts';
import type { PacketParsers } from './packet-parsers.ts';
import { CONNECT_REFUSAL_CODES, PUBLISH_REFUSAL_CODES, RC, subackRefusalCode, V3_CONNACK, type ConnackRefusal } from './reason-codes.ts';
import { InboundTopicAliases } from './topic-aliases.ts';
import type { WireOp, WireOpAnswer, WireSubscription } from '../../model/cluster-ops/wire-ops.ts';
import { DurableOutbox, type OutputGate } from './durable-outbox.ts';

/** What a connection needs from its listener. */
export interface WireHost {
  readonly cluster: Cluster;
  /** Node whose port the client connected to: the client lands on it. */
  readonly nodeId: number;
  readonly login: Login;
  readonly connectTimeoutMs: number;
  /** Brings virtual time up to wall time, applies the op to the model, journals it. */
  apply<T extends WireOp>(op: T, sink?: DeliverySink): WireOpAnswer<T>;
  /** A packet arrived on a logged-in connection (its heartbeat). */
  touch(tenant: string, clientId: string, connectionId: number): void;
  /** Packet ids of a client's QoS 2 messages received and not yet released (PUBREL), kept across its connections. */
  inboundQos2(key: string): Set<number>;
  forgetInboundQos2(key: string): void;
  /** A client id for a client that asked the broker to assign one. */
  assignClientId(): string;
  /** An exception that is a bug of the broker (logged; the connection is closed). */
  internalError(error: unknown): void;
  /** The connection is gone (socket closed). */
  released(connection: WireConnection): void;
  /** With a journal (`mqsim serve --state`): packets wait until what was journaled before them is durable. */
  readonly outputGate?: OutputGate;
  /** mqtt-packet's parsers for the packets not read by hand, shared by the listener's connections. */
  readonly parsers: PacketParsers;
  /** PUBLISH bytes, shared by the listener's connections: a message fanned out is encoded once. */
  readonly encoder: PublishEncoder;
}

const ignoreSocketError = (): void => {
  // A reset or a write to a closed peer: 'close' follows and ends the session.
};

type State = 'awaiting-connect' | 'connected' | 'closing' | 'closed';

/** Bytes a slow reader may have waiting in its socket before QoS 0 messages to it are dropped. */
const SLOW_READER_BYTES = 8 * 1024 * 1024;
/** How long a closing socket may take to flush before it is destroyed. */
const CLOSE_GRACE_MS = 1_000;
/** The broker's QoS 2 receive window when none is configured (MQTT 5 Receive Maximum it announces). */
const MAX_RECEIVE = 65_535;

/** What the client of this connection is, once logged in. */
interface Identity {
  tenant: string;
  clientId: string;
  connectionId: number;
  version: ProtocolVersion;
  /** The client's Maximum Packet Size (MQTT 5). */
  clientMaxPacket: number;
  keepAliveMs: number;
}

/**
 * One MQTT connection: a socket, its frame reader and the protocol's state machine
 * (awaiting CONNECT → connected → closing → closed). Every packet that changes the model becomes a
 * journaled op through the host; everything else (acknowledgements, keep-alive, packet ids, topic
 * aliases) lives here and ends with the socket. Bad input is answered as MQTT prescribes (a CONNACK
 * or, for MQTT 5, a DISCONNECT with the reason code) and the socket closed; nothing a client sends
 * can throw out of this class.
 */
export class WireConnection implements DeliverySink, FrameSink {
  private state: State = 'awaiting-connect';
  /** Splits the input into packets, handed to this connection's `frame`. */
  private readonly frames: FrameReader;
  private version: ProtocolVersion = 4;
  private me: Identity | undefined;
  private flow: OutboundFlow | undefined;
  private aliases: InboundTopicAliases | undefined;
  private awaitingRelease: Set<number> | undefined;
  /** Deliveries that arrive while an acknowledgement (CONNACK, SUBACK) is still to be written go out after it. */
  private held: (OutgoingMessage | PendingMessage)[] | undefined = [];
  /** The model knows this connection is over (its op was applied, or the model closed it). */
  private modelDone = false;
  private lastInboundAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private timerAction: ((this: WireConnection) => void) | undefined;
  private readonly fireTimer = this.runTimer.bind(this);
  private maxPacketSize: number;
  /** Packets written in this turn of the event loop, sent as one buffer at its end; undefined: none. */
  private batch: Buffer[] | undefined;
  private batchBytes = 0;
  private readonly flushBatch = this.flush.bind(this);
  /** With a journal: packets held until what they acknowledge is durable (then no batching here). */
  private readonly outbox: DurableOutbox | undefined;

  // The connection is its own delivery sink and frame sink: no closures made per connection (a
  // reconnect storm makes many), the model and the frame reader call these methods.

  constructor(
    private readonly socket: Socket,
    private readonly host: WireHost,
  ) {
    this.maxPacketSize = host.cluster.config.current().MqttProtocol.max_packet_size;
    this.frames = new FrameReader(this);
    this.outbox = host.outputGate ? new DurableOutbox(socket, host.outputGate) : undefined;
    socket.on('data', this.onData.bind(this));
    socket.on('error', ignoreSocketError);
    socket.on('close', this.onSocketClosed.bind(this));
    this.arm(host.connectTimeoutMs, this.connectTimedOut);
  }

  /** The delivery sink the model hands this connection's messages to. */
  get sink(): DeliverySink {
    return this;
  }

  /** DeliverySink: a message for the client. */
  deliver(message: OutgoingMessage | PendingMessage): void {
    // Not guarded: a failure here must not call back into the broker, which is delivering.
    this.deliverNow(message);
  }

  /** DeliverySink: the broker closed this connection. */
  closed(why: ConnectionCloseReason): void {
    this.closedByBroker(why);
  }

  /** DeliverySink: unacknowledged QoS 1/2 messages per direction. */
  inflight(): { sending: number; receiving: number } {
    return { sending: this.flow?.inFlightCount ?? 0, receiving: this.awaitingRelease?.size ?? 0 };
  }

  /** DeliverySink: topic aliases the client set. */
  topicAliases(): Record<string, string> {
    return this.aliases?.entries() ?? {};
  }

  /** The limit FrameReader holds announced lengths to. */
  get maxRemaining(): number {
    return this.maxPacketSize;
  }

  /** FrameSink: a packet announced more than max_packet_size (refused before its body is read, MQTT 5 §3.1.2.11.4). */
  tooLarge(remaining: number): void {
    this.fail(RC.packetTooLarge, `a packet of ${remaining} bytes exceeds max_packet_size ${this.maxPacketSize}`);
  }

  /** FrameSink: a remaining length of more than four bytes, as mqtt-packet names it. */
  unframeable(): void {
    this.onParseError(new Error('Invalid variable byte integer'));
  }

  /** The peer's address as the model records it (IPv4-mapped IPv6 as plain IPv4). */
  private get peer(): { ip: string; port: number } {
    let ip = this.socket.remoteAddress ?? '0.0.0.0';
    if (ip.startsWith('::ffff:')) ip = ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
    return { ip, port: this.socket.remotePort ?? 0 };
  }

  /** Runs a handler; an exception there is a broker bug: logged, and the connection closed. */
  private guard<A>(fn: (this: WireConnection, arg: A) => void, arg: A): void {
    try {
      fn.call(this, arg);
    } catch (e) {
      this.host.internalError(e);
      try {
        this.fail(RC.implementationSpecificError, 'internal error');
      } catch {
        this.socket.destroy();
      }
    }
  }

  // ------------------------------------------------------------------ input

  private onData(chunk: Buffer): void {
    this.guard(this.readChunk, chunk);
  }

  private readChunk(chunk: Buffer): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    this.lastInboundAt = Date.now();
    this.frames.push(chunk);
  }

  /**
   * FrameSink: one complete packet. PUBLISH, acknowledgements, PINGREQ, DISCONNECT and CONNECT in
   * their plain form are read here (fast-packets.ts); every other packet by mqtt-packet (the listener's shared parsers). False: stop reading.
   */
  frame(packet: Buffer, bodyAt: number, remaining: number): boolean {
    if (this.state === 'connected') {
      const publish = readPlainPublish(packet, bodyAt, remaining, this.version);
      if (publish) {
        this.onPublish(publish);
        return this.state === 'connected';
      }
      const ack = plainAckKind(packet, remaining);
      if (ack !== undefined) {
        if (ack === 'pubrel') this.onPubrel(ackPacketId(packet));
        else this.onAck(ack, ackPacketId(packet));
        return this.state === 'connected';
      }
    }
    const byHand =
      this.state === 'connected'
        ? readEmptyPacket(packet, this.version)
        : this.state === 'awaiting-connect'
          ? readPlainConnect(packet, bodyAt, remaining)
          : undefined;
    if (byHand) {
      this.onPacket(byHand);
      const state = this.state as State;
      return state !== 'closing' && state !== 'closed';
    }
    const outcome = this.host.parsers.parse(packet, this.version);
    if (outcome.ok) this.onPacket(outcome.packet);
    else this.onParseError(outcome.error);
    const state = this.state as State; // the packet may have closed the connection
    return state !== 'closing' && state !== 'closed';
  }

  private onParseError(e: Error): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    if (this.state === 'awaiting-connect' && /protocol version/i.test(e.message)) {
      // MQTT 3.1.1 §3.1.2.2: answer an unsupported level with return code 1, then close.
      this.write({ cmd: 'connack', returnCode: V3_CONNACK.unacceptableProtocolVersion, sessionPresent: false }, 4);
      this.drop('unsupported protocol version');
      return;
    }
    this.fail(RC.malformedPacket, `malformed packet: ${e.message}`);
  }

  private onPacket(p: Packet): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    if ((p.length ?? 0) > this.maxPacketSize) {
      this.fail(RC.packetTooLarge, `a packet of ${p.length} bytes exceeds max_packet_size ${this.maxPacketSize}`);
      return;
    }
    if (this.state === 'awaiting-connect') {
      if (p.cmd !== 'connect') this.drop(`the first packet must be CONNECT, got ${p.cmd.toUpperCase()}`);
      else this.onConnect(p);
      return;
    }
    const me = this.me!;
    switch (p.cmd) {
      case 'publish':
        return this.onPublish(p); // the model's publish marks the heartbeat itself
      case 'puback':
      case 'pubrec':
      case 'pubcomp':
        return this.onAck(p.cmd, p.messageId ?? 0);
      case 'pubrel':
        return this.onPubrel(p.messageId ?? 0);
      case 'subscribe':
        return this.onSubscribe(p);
      case 'unsubscribe':
        return this.onUnsubscribe(p);
      case 'pingreq':
        this.host.touch(me.tenant, me.clientId, me.connectionId);
        this.write({ cmd: 'pingresp' });
        return;
      case 'disconnect':
        return this.onDisconnect(p);
      default:
        // A second CONNECT, an AUTH without enhanced authentication, a server-to-client packet.
        this.fail(RC.protocolError, `unexpected ${p.cmd.toUpperCase()} on an open connection`);
    }
  }

  // ------------------------------------------------------------------ CONNECT

  /**
   * CONNECT: the checks before the model (packet, authentication method, login, in protocol order),
   * the terms the broker grants, the model's admission, then the CONNACK and the deliveries held for it.
   */
  private onConnect(packet: IConnectPacket): void {
    this.disarm();
    const protocolCfg = this.host.cluster.config.current().MqttProtocol;
    this.version = (packet.protocolVersion ?? 4) as ProtocolVersion;
    const checked = checkConnect(packet, this.host.login, protocolCfg.default_session_expiry_interval);
    if (!checked.ok) return this.refuseConnect(checked.codes, checked.reason);
    const limits = { maxKeepAlive: this.maxKeepAlive(), maxSessionExpiry: protocolCfg.max_session_expiry_interval };
    const terms = grantConnect(checked.request, limits, () => this.host.assignClientId());
    const op = connectOp(checked, terms, this.host.nodeId, this.peer, this.version);
    const answer = this.holding(() => this.host.apply(op, this.sink));
    if (!answer.ok) {
      this.held = undefined;
      return this.refuseConnect(CONNECT_REFUSAL_CODES[answer.refusal], answer.reason);
    }
    this.becomeConnected(checked, terms, answer.connectionId, answer.sessionPresent);
    this.writeConnack(checked.request, terms, answer.sessionPresent);
    this.release();
    this.watchKeepAlive();
  }

  /** The node's keep-alive maximum (seconds), which MQTT 5 clients are held to. */
  private maxKeepAlive(): number {
    const cluster = this.host.cluster;
    const node = cluster.nodes.get(this.host.nodeId);
    return node ? staticNodeConfig(node, cluster.raft.layoutOf()).mqtt_keep_alive.max_time : 3_600;
  }

  /** The model admitted the client: its identity, outbound window, topic aliases and QoS 2 state on this connection. */
  private becomeConnected(checked: CheckedConnect, terms: ConnectTerms, connectionId: number, sessionPresent: boolean): void {
    const protocolCfg = this.host.cluster.config.current().MqttProtocol;
    const req = checked.request;
    this.state = 'connected';
    this.me = {
      tenant: checked.tenant,
      clientId: terms.clientId,
      connectionId,
      version: this.version,
      clientMaxPacket: req.maximumPacketSize ?? Infinity,
      keepAliveMs: terms.keepAlive * 1000,
    };
    // MQTT 3 clients announce no window: the broker's own receive maximum bounds what it sends in flight.
    this.flow = new OutboundFlow(Math.min(req.receiveMaximum, protocolCfg.receive_max || MAX_RECEIVE));
    this.aliases = new InboundTopicAliases(this.version === 5 ? Math.min(protocolCfg.topic_alias_max, 65_535) : 0);
    const key = clientKey(checked.tenant, terms.clientId);
    if (!sessionPresent) this.host.forgetInboundQos2(key);
    this.awaitingRelease = this.host.inboundQos2(key);
    this.maxPacketSize = protocolCfg.max_packet_size;
  }

  /** The CONNACK of an accepted CONNECT: MQTT 5 announces the broker's limits and the terms that differ. */
  private writeConnack(req: ConnectRequest, terms: ConnectTerms, sessionPresent: boolean): void {
    if (this.version !== 5) {
      this.writeBytes(encodeConnackV3(sessionPresent, V3_CONNACK.accepted));
      return;
    }
    const protocolCfg = this.host.cluster.config.current().MqttProtocol;
    const announced = {
      receiveMaximum: Math.min(protocolCfg.receive_max || MAX_RECEIVE, MAX_RECEIVE),
      maximumPacketSize: protocolCfg.max_packet_size,
      topicAliasMaximum: Math.min(protocolCfg.topic_alias_max, 65_535),
    };
    this.write({ cmd: 'connack', reasonCode: RC.success, sessionPresent, properties: connackProperties(announced, req, terms) });
  }

  private refuseConnect(codes: ConnackRefusal, reason: string): void {
    const v5 = this.version === 5;
    this.write(
      v5
        ? { cmd: 'connack', reasonCode: codes.v5, sessionPresent: false, properties: { reasonString: reason.slice(0, 200) } }
        : { cmd: 'connack', returnCode: codes.v3, sessionPresent: false },
    );
    this.drop(reason);
  }

  // ------------------------------------------------------------------ messages from the client

  private onPublish(p: IPublishPacket): void {
    const me = this.me!;
    const qos = p.qos as QoS;
    const id = p.messageId ?? 0;
    const resolved = this.aliases!.resolve(p.topic, p.properties?.topicAlias);
    if (!resolved.ok) return this.fail(resolved.code, resolved.reason);
    const topic = resolved.topic;
    const problem = topicNameProblem(topic);
    // A wildcard in a topic name is a protocol violation (MQTT 3.1.1 §3.3.2.1, MQTT 5 §3.3.2.1).
    if (problem) return this.fail(RC.topicNameInvalid, problem);
    if (qos === 2 && this.awaitingRelease!.has(id)) {
      // A resent QoS 2 message already taken: acknowledge again, do not publish twice (MQTT §4.3.3).
      this.write({ cmd: 'pubrec', messageId: id });
      return;
    }
    if (
      qos === 2 &&
      this.awaitingRelease!.size >= Math.min(this.host.cluster.config.current().MqttProtocol.receive_max || MAX_RECEIVE, MAX_RECEIVE)
    ) {
      return this.fail(RC.receiveMaximumExceeded, 'more QoS 2 messages in flight than the Receive Maximum announced');
    }
    let code: number;
    if (this.version === 5 && payloadFormatBroken(p)) {
      code = RC.payloadFormatInvalid;
    } else {
      const { payload, extras } = readPublish(p, this.version);
      const answer = this.host.apply({
        op: 'publish',
        tenant: me.tenant,
        clientId: me.clientId,
        connectionId: me.connectionId,
        topic,
        payload,
        qos,
        retain: p.retain,
        ...(extras ? { extras } : {}),
      });
      if (this.state !== 'connected') return; // the broker closed this connection (schema failure with Disconnect)
      code = answer.ok ? (answer.delivered > 0 ? RC.success : RC.noMatchingSubscribers) : PUBLISH_REFUSAL_CODES[answer.refusal];
    }
    if (qos === 0) return;
    // MQTT 3 cannot refuse a message: it is acknowledged and dropped (and the model counted the drop).
    const reasonCode = this.version === 5 ? code : undefined;
    if (qos === 1) {
      if (reasonCode === undefined || reasonCode === RC.success) this.writeBytes(encodeAck('puback', id, this.version));
      else this.write({ cmd: 'puback', messageId: id, reasonCode });
      return;
    }
    if (reasonCode === undefined || reasonCode < 0x80) this.awaitingRelease!.add(id);
    this.write({ cmd: 'pubrec', messageId: id, ...(reasonCode !== undefined && reasonCode !== RC.success ? { reasonCode } : {}) });
  }

  private onPubrel(id: number): void {
    const known = this.awaitingRelease!.delete(id);
    this.write({ cmd: 'pubcomp', messageId: id, ...(this.version === 5 && !known ? { reasonCode: RC.packetIdentifierNotFound } : {}) });
  }

  private onAck(kind: 'puback' | 'pubrec' | 'pubcomp', id: number): void {
    const outcome = this.flow!.ack(kind, id);
    // An acknowledgement of nothing is ignored (a late duplicate after a resend), not fatal.
    if (outcome.ok) this.sendAll(outcome.sends);
  }

  private onSubscribe(p: ISubscribePacket): void {
    const me = this.me!;
    const subscriptionIdentifier = p.properties?.subscriptionIdentifier;
    if (subscriptionIdentifier === 0) return this.fail(RC.protocolError, 'Subscription Identifier must not be 0');
    const subscriptions: WireSubscription[] = p.subscriptions.map((s) => ({
      path: s.topic,
      qos: s.qos,
      noLocal: s.nl ?? false,
      retainAsPublished: s.rap ?? false,
      retainHandling: (s.rh ?? 0) as RetainHandling,
    }));
    const results = this.holding(() =>
      this.host.apply({
        op: 'subscribe',
        tenant: me.tenant,
        clientId: me.clientId,
        connectionId: me.connectionId,
        subscriptions,
        subscriptionIdentifier: subscriptionIdentifier ?? null,
        userProperties: userPropertyList(p.properties?.userProperties),
      }),
    );
    const granted = results.map((r, i) => (r.ok ? subscriptions[i].qos : subackRefusalCode(this.version, r.refusal)));
    this.write({ cmd: 'suback', messageId: p.messageId ?? 0, granted });
    this.release();
  }

  private onUnsubscribe(p: IUnsubscribePacket): void {
    const me = this.me!;
    const answer = this.host.apply({
      op: 'unsubscribe',
      tenant: me.tenant,
      clientId: me.clientId,
      connectionId: me.connectionId,
      paths: p.unsubscriptions,
    });
    const removed = answer.ok ? answer.removed : p.unsubscriptions.map(() => false);
    this.write(
      this.version === 5
        ? { cmd: 'unsuback', messageId: p.messageId ?? 0, granted: removed.map((r) => (r ? RC.success : RC.noSubscriptionExisted)) }
        : { cmd: 'unsuback', messageId: p.messageId ?? 0, granted: [] },
    );
  }

  private onDisconnect(p: IDisconnectPacket): void {
    const me = this.me!;
    const expiry = p.properties?.sessionExpiryInterval;
    const session = this.host.cluster.mqtt.client(me.tenant, me.clientId)?.session;
    // MQTT 5 §3.14.2.2.2: a session that was to end at disconnect cannot be given an expiry now.
    if (expiry !== undefined && expiry > 0 && session && session.sessionExpiry === 0)
      return this.fail(RC.protocolError, 'DISCONNECT sets a Session Expiry Interval on a session that had 0');
    const clean = this.version !== 5 || p.reasonCode !== RC.disconnectWithWill;
    this.endInModel(clean, 'DISCONNECT', expiry);
    this.close(true);
  }

  // ------------------------------------------------------------------ messages to the client

  private deliverNow(message: OutgoingMessage | PendingMessage): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    if (this.held) {
      this.held.push(message);
      return;
    }
    const me = this.me!;
    // A slow reader loses QoS 0 messages.
    if (message.qos === 0 && this.socket.writableLength + this.batchBytes + (this.outbox?.heldBytes ?? 0) > SLOW_READER_BYTES) return;
    if (me.clientMaxPacket !== Infinity) {
      // MQTT 5 §3.1.2.11.4: a message larger than the client accepts is discarded, as if delivered.
      const probe = this.host.encoder.encode(message, me.version, this.host.cluster.now(), message.qos > 0 ? 1 : undefined, false);
      if (probe && probe.length > me.clientMaxPacket) return;
    }
    this.sendAll(this.flow!.offer(message));
  }

  private sendAll(sends: Send[]): void {
    for (const s of sends) {
      if (s.kind === 'pubrel') {
        this.writeBytes(encodeAck('pubrel', s.packetId, this.version));
        continue;
      }
      const bytes = this.host.encoder.encode(s.message, this.version, this.host.cluster.now(), s.packetId, s.dup);
      if (bytes) {
        this.writeBytes(bytes);
      } else if (s.packetId !== undefined) {
        // Expired while it waited (MQTT 5 message expiry): never sent, so its slot is freed at once.
        const outcome = this.flow!.ack(s.message.qos === 1 ? 'puback' : 'pubrec', s.packetId);
        if (outcome.ok && s.message.qos === 2) this.flow!.ack('pubcomp', s.packetId);
      }
    }
  }

  /** Runs `fn` with deliveries held back, so they go out after the acknowledgement the caller writes next. */
  private holding<T>(fn: () => T): T {
    this.held ??= [];
    return fn();
  }

  private release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const m of held) this.deliverNow(m);
  }

  // ------------------------------------------------------------------ the end

  /** The broker closed this connection (takeover, node offline, schema failure, an operator). */
  private closedByBroker(why: ConnectionCloseReason): void {
    if (this.modelDone || this.state === 'closed') return;
    this.modelDone = true;
    const me = this.me;
    const unfinished = this.flow?.unfinished(this.host.cluster.now()) ?? [];
    if (me && unfinished.length > 0) {
      // Not from inside the broker's own call: the session may be mid-takeover. Right after it.
      queueMicrotask(() =>
        this.guard(
          () => void this.host.apply({ op: 'requeue', tenant: me.tenant, clientId: me.clientId, messages: unfinished }),
          undefined,
        ),
      );
    }
    const code =
      why === 'takeover'
        ? RC.sessionTakenOver
        : why === 'node-offline'
          ? RC.serverShuttingDown
          : why === 'connection-lost'
            ? RC.payloadFormatInvalid
            : RC.administrativeAction;
    if (this.version === 5 && this.state === 'connected') this.write({ cmd: 'disconnect', reasonCode: code });
    this.close();
  }

  /** The listener shuts down: the connection is lost (its will goes out), MQTT 5 clients are told why. */
  shutdown(): void {
    this.guard(() => {
      if (this.state === 'closed') return;
      if (this.version === 5 && this.state === 'connected') this.write({ cmd: 'disconnect', reasonCode: RC.serverShuttingDown });
      this.endInModel(false, 'server shutting down');
      this.close();
    }, undefined);
  }

  /** A protocol violation: MQTT 5 clients get a DISCONNECT with the reason, then the connection is lost. */
  private fail(code: number, reason: string): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    if (this.version === 5 && this.state === 'connected')
      this.write({ cmd: 'disconnect', reasonCode: code, properties: { reasonString: reason.slice(0, 200) } });
    this.endInModel(false, reason);
    this.close();
  }

  /** Closes without a word (no CONNECT in time, a refused CONNECT after its CONNACK, a first packet that is not CONNECT). */
  private drop(reason: string): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    this.endInModel(false, reason);
    this.close();
  }

  /** Tells the model the connection ended, once, with what it had not finished delivering. */
  private endInModel(clean: boolean, why: string, sessionExpiry?: number): void {
    if (this.modelDone || !this.me) return;
    this.modelDone = true;
    const me = this.me;
    const keep = this.flow?.unfinished(this.host.cluster.now()) ?? [];
    this.host.apply({
      op: 'disconnect',
      tenant: me.tenant,
      clientId: me.clientId,
      connectionId: me.connectionId,
      clean,
      keep,
      why,
      ...(sessionExpiry !== undefined ? { sessionExpiry } : {}),
    });
  }

  /**
   * Ends the connection: what was written goes out, then the socket is ended and given CLOSE_GRACE_MS
   * to flush. `peerDone`: the client said DISCONNECT, so it sends nothing more; with nothing left to
   * write the socket is closed at once (MQTT §3.14.4), without a half-closed stage and its timer.
   */
  private close(peerDone = false): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    this.state = 'closing';
    this.disarm();
    if (this.outbox) this.outbox.end();
    else if (peerDone && this.batch === undefined && this.socket.writableLength === 0) {
      this.socket.destroy();
      return;
    } else {
      this.flush();
      this.socket.end();
    }
    this.arm(CLOSE_GRACE_MS, this.destroySocket);
  }

  private onSocketClosed(): void {
    this.guard(this.socketClosed, undefined);
  }

  private socketClosed(): void {
    if (this.state === 'closed') return;
    if (this.state === 'connected') this.endInModel(false, 'connection lost');
    this.state = 'closed';
    this.disarm();
    // Nothing awaiting release and no other connection of the client: its QoS 2 state can go.
    const me = this.me;
    if (me && this.awaitingRelease?.size === 0 && !this.host.cluster.mqtt.isConnected(me.tenant, me.clientId))
      this.host.forgetInboundQos2(clientKey(me.tenant, me.clientId));
    this.host.released(this);
  }

  private write(packet: Packet, version: ProtocolVersion = this.version): void {
    this.writeBytes(mqttPacket.generate(packet, { protocolVersion: version }));
  }

  private writeBytes(bytes: Buffer): void {
    const socket = this.socket;
    if (socket.destroyed || !socket.writable) return;
    if (this.outbox) {
      this.outbox.write(bytes);
      return;
    }
    // Everything written in one turn of the event loop goes out as one buffer in one write: a chunk
    // of PUBLISH packets gets its acknowledgements, and a subscriber its burst of messages, without a
    // stream write (or a syscall) each.
    if (this.batch === undefined) {
      this.batch = [bytes];
      this.batchBytes = bytes.length;
      process.nextTick(this.flushBatch);
    } else {
      this.batch.push(bytes);
      this.batchBytes += bytes.length;
    }
  }

  /** Sends what this turn wrote (also before the socket is ended, so nothing written is lost). */
  private flush(): void {
    const batch = this.batch;
    if (batch === undefined) return;
    const size = this.batchBytes;
    this.batch = undefined;
    this.batchBytes = 0;
    const socket = this.socket;
    if (socket.destroyed || !socket.writable) return;
    socket.write(batch.length === 1 ? batch[0] : Buffer.concat(batch, size));
  }

  // ------------------------------------------------------------------ timers

  private watchKeepAlive(): void {
    const ms = this.me!.keepAliveMs;
    if (ms === 0) {
      // TCP keep-alive finds dead peers of clients that asked for no MQTT keep-alive.
      this.socket.setKeepAlive(true, 60_000);
      return;
    }
    this.arm(ms * 1.5, this.checkKeepAlive);
  }

  /** MQTT §3.1.2.10: close after one and a half keep-alive periods without a packet. */
  private checkKeepAlive(): void {
    const ms = this.me!.keepAliveMs;
    const limit = ms * 1.5;
    const idle = Date.now() - this.lastInboundAt;
    if (idle >= limit) {
      const why = `no packet for ${Math.round(idle / 1000)} s (keep alive ${ms / 1000} s)`;
      this.guard(() => this.fail(RC.keepAliveTimeout, why), undefined);
    } else this.arm(limit - idle, this.checkKeepAlive);
  }

  private connectTimedOut(): void {
    this.drop('no CONNECT in time');
  }

  private destroySocket(): void {
    this.socket.destroy();
  }

  /** One timer per connection at a time (CONNECT deadline, keep-alive, close grace); methods, not closures, run on it. */
  private arm(ms: number, action: (this: WireConnection) => void): void {
    this.disarm();
    this.timerAction = action;
    this.timer = setTimeout(this.fireTimer, ms);
    this.timer.unref();
  }

  private runTimer(): void {
    const action = this.timerAction;
    this.timer = undefined;
    this.timerAction = undefined;
    action?.call(this);
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAction = undefined;
  }
}
