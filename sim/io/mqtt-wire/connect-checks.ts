import type { IConnectPacket, IConnackPacket } from 'mqtt-packet';
import type { ConnectOp } from '../../model/cluster-ops/wire-ops.ts';
import type { ProtocolVersion } from '../../model/mqtt/mqtt-labels.ts';
import type { Login } from './login.ts';
import { readConnect, type ConnectRequest } from './packet-mapping.ts';
import { RC, V3_CONNACK, type ConnackRefusal } from './reason-codes.ts';

/** A CONNECT refused before the model sees it: the CONNACK's codes and the reason given. */
export interface ConnectRefused {
  ok: false;
  codes: ConnackRefusal;
  reason: string;
}

/** A CONNECT that passed the checks: what it asks for, and who logged in. */
export interface CheckedConnect {
  ok: true;
  request: ConnectRequest;
  tenant: string;
  username: string;
}

/** A CONNECT going through the checks: each check reads what the earlier ones established. */
interface Attempt {
  readonly packet: IConnectPacket;
  readonly login: Login;
  readonly defaultSessionExpiry: number;
  request?: ConnectRequest;
  account?: { tenant: string; username: string };
}

type ConnectCheck = (attempt: Attempt) => ConnectRefused | undefined;

/** The packet's own rules: client id, properties, will (MQTT 3.1.1 §3.1, MQTT 5 §3.1). */
const wellFormed: ConnectCheck = (attempt) => {
  const reading = readConnect(attempt.packet, attempt.defaultSessionExpiry);
  if (!reading.ok) return reading;
  attempt.request = reading.request;
  return undefined;
};

/** Enhanced authentication (MQTT 5 §4.12) is not offered: an Authentication Method is refused. */
const noEnhancedAuthentication: ConnectCheck = (attempt) =>
  attempt.request!.authenticationMethod === undefined
    ? undefined
    : {
        ok: false,
        codes: { v3: V3_CONNACK.notAuthorized, v5: RC.badAuthenticationMethod },
        reason: 'enhanced authentication is not offered',
      };

/** The credentials and the tenant they log in to. */
const loggedIn: ConnectCheck = (attempt) => {
  const req = attempt.request!;
  const outcome = attempt.login.check({
    ...(req.username !== undefined ? { username: req.username } : {}),
    ...(req.password ? { password: req.password } : {}),
    ...(req.tenantProperty !== undefined ? { tenantProperty: req.tenantProperty } : {}),
  });
  if (!outcome.ok) return outcome;
  attempt.account = { tenant: outcome.tenant, username: outcome.username };
  return undefined;
};

/**
 * The checks of a CONNECT before the model's admission, in protocol order: the packet, then the
 * authentication method, then the login. The first refusal is the answer.
 */
const CONNECT_CHECKS: readonly ConnectCheck[] = [wellFormed, noEnhancedAuthentication, loggedIn];

/** Runs the checks in order; the first refusal, or what they established. */
export function checkConnect(packet: IConnectPacket, login: Login, defaultSessionExpiry: number): CheckedConnect | ConnectRefused {
  const attempt: Attempt = { packet, login, defaultSessionExpiry };
  for (const check of CONNECT_CHECKS) {
    const refused = check(attempt);
    if (refused) return refused;
  }
  return { ok: true, request: attempt.request!, tenant: attempt.account!.tenant, username: attempt.account!.username };
}

/** What the broker grants a CONNECT that passed the checks, where it differs from what was asked. */
export interface ConnectTerms {
  clientId: string;
  /** The client id the broker assigned (the client sent an empty one). */
  assigned: string | undefined;
  keepAlive: number;
  sessionExpiry: number;
}

/** The broker's limits a CONNECT is held to. */
export interface ConnectLimits {
  /** The node's keep-alive maximum, seconds. */
  maxKeepAlive: number;
  maxSessionExpiry: number;
}

/**
 * The client id (assigned when empty), the keep-alive (MQTT 5 lets the broker impose its maximum as
 * Server Keep Alive; MQTT 3 clients keep theirs) and the session expiry (capped).
 */
export function grantConnect(req: ConnectRequest, limits: ConnectLimits, assignClientId: () => string): ConnectTerms {
  const assigned = req.clientId === '' ? assignClientId() : undefined;
  return {
    clientId: assigned ?? req.clientId,
    assigned,
    keepAlive: req.version === 5 && req.keepAlive > limits.maxKeepAlive ? limits.maxKeepAlive : req.keepAlive,
    sessionExpiry: Math.min(req.sessionExpiry, limits.maxSessionExpiry),
  };
}

/** The model operation of a CONNECT: the session the client lands in on its node. */
export function connectOp(
  checked: CheckedConnect,
  terms: ConnectTerms,
  node: number,
  peer: { ip: string; port: number },
  version: ProtocolVersion,
): ConnectOp {
  const req = checked.request;
  return {
    op: 'connect',
    node,
    tenant: checked.tenant,
    clientId: terms.clientId,
    username: checked.username,
    ip: peer.ip,
    port: peer.port,
    protocol: version,
    cleanStart: req.cleanStart,
    sessionExpiry: terms.sessionExpiry,
    keepAlive: terms.keepAlive,
    lastWill: req.lastWill,
    ...(version === 5
      ? {
          receiveMaximum: req.receiveMaximum,
          topicAliasMax: req.topicAliasMaximum,
          ...(req.maximumPacketSize !== undefined ? { maxPacketSize: req.maximumPacketSize } : {}),
        }
      : {}),
  };
}

/** The broker's protocol settings an MQTT 5 CONNACK announces. */
export interface AnnouncedLimits {
  receiveMaximum: number;
  maximumPacketSize: number;
  topicAliasMaximum: number;
}

/** An MQTT 5 CONNACK's properties: the broker's limits and features, and the terms that differ from the request. */
export function connackProperties(
  limits: AnnouncedLimits,
  req: ConnectRequest,
  terms: ConnectTerms,
): NonNullable<IConnackPacket['properties']> {
  const properties: NonNullable<IConnackPacket['properties']> = {
    ...limits,
    retainAvailable: true,
    wildcardSubscriptionAvailable: true,
    subscriptionIdentifiersAvailable: true,
    sharedSubscriptionAvailable: true,
  };
  if (terms.assigned) properties.assignedClientIdentifier = terms.assigned;
  if (terms.sessionExpiry !== req.sessionExpiry) properties.sessionExpiryInterval = terms.sessionExpiry;
  if (terms.keepAlive !== req.keepAlive) properties.serverKeepAlive = terms.keepAlive;
  return properties;
}
