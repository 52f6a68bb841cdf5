import type { ConnectRefusal, PublishRefusal, SubscribeRefusal } from '../../model/mqtt/broker-api.ts';
import type { ProtocolVersion } from '../../model/mqtt/mqtt-labels.ts';

/**
 * The answers MQTT prescribes: CONNACK return codes of MQTT 3.1/3.1.1 (§3.2.2.3) and the reason
 * codes of MQTT 5 (§2.4), and how the model's refusals map onto them.
 */

/** MQTT 3.1.1 CONNACK return codes. */
export const V3_CONNACK = {
  accepted: 0,
  unacceptableProtocolVersion: 1,
  identifierRejected: 2,
  serverUnavailable: 3,
  badUserNameOrPassword: 4,
  notAuthorized: 5,
} as const;

/** MQTT 5 reason codes (the ones this listener sends). */
export const RC = {
  success: 0x00,
  grantedQos1: 0x01,
  grantedQos2: 0x02,
  disconnectWithWill: 0x04,
  noMatchingSubscribers: 0x10,
  noSubscriptionExisted: 0x11,
  unspecifiedError: 0x80,
  malformedPacket: 0x81,
  protocolError: 0x82,
  implementationSpecificError: 0x83,
  unsupportedProtocolVersion: 0x84,
  clientIdentifierNotValid: 0x85,
  badUserNameOrPassword: 0x86,
  notAuthorized: 0x87,
  serverUnavailable: 0x88,
  serverBusy: 0x89,
  banned: 0x8a,
  serverShuttingDown: 0x8b,
  badAuthenticationMethod: 0x8c,
  keepAliveTimeout: 0x8d,
  sessionTakenOver: 0x8e,
  topicFilterInvalid: 0x8f,
  topicNameInvalid: 0x90,
  packetIdentifierNotFound: 0x92,
  receiveMaximumExceeded: 0x93,
  topicAliasInvalid: 0x94,
  packetTooLarge: 0x95,
  quotaExceeded: 0x97,
  administrativeAction: 0x98,
  payloadFormatInvalid: 0x99,
  connectionRateExceeded: 0x9f,
} as const;

/** What a refused connect is answered with, per protocol version. */
export interface ConnackRefusal {
  v3: number;
  v5: number;
}

/** CONNACK codes of the model's connect refusals (MQTT 3 has no code for a ban or a quota: 5 and 3 come closest). */
export const CONNECT_REFUSAL_CODES: Readonly<Record<ConnectRefusal, ConnackRefusal>> = {
  'invalid-client-id': { v3: V3_CONNACK.identifierRejected, v5: RC.clientIdentifierNotValid },
  invalid: { v3: V3_CONNACK.identifierRejected, v5: RC.protocolError },
  unavailable: { v3: V3_CONNACK.serverUnavailable, v5: RC.serverUnavailable },
  banned: { v3: V3_CONNACK.notAuthorized, v5: RC.banned },
  rate: { v3: V3_CONNACK.serverUnavailable, v5: RC.connectionRateExceeded },
  quota: { v3: V3_CONNACK.serverUnavailable, v5: RC.quotaExceeded },
};

/** CONNACK codes of the listener's own refusals (login, protocol). */
export const LOGIN_REFUSAL_CODES = {
  badCredentials: { v3: V3_CONNACK.badUserNameOrPassword, v5: RC.badUserNameOrPassword },
  notAuthorized: { v3: V3_CONNACK.notAuthorized, v5: RC.notAuthorized },
  badAuthenticationMethod: { v3: V3_CONNACK.notAuthorized, v5: RC.badAuthenticationMethod },
  identifierRejected: { v3: V3_CONNACK.identifierRejected, v5: RC.clientIdentifierNotValid },
  protocolError: { v3: V3_CONNACK.identifierRejected, v5: RC.protocolError },
  topicNameInvalid: { v3: V3_CONNACK.identifierRejected, v5: RC.topicNameInvalid },
  serverUnavailable: { v3: V3_CONNACK.serverUnavailable, v5: RC.serverUnavailable },
} as const satisfies Record<string, ConnackRefusal>;

/** MQTT 5 PUBACK/PUBREC reason of a refused publish (MQTT 3 cannot refuse one: the message is dropped). */
export const PUBLISH_REFUSAL_CODES: Readonly<Record<PublishRefusal, number>> = {
  'invalid-topic': RC.topicNameInvalid,
  invalid: RC.protocolError,
  'not-connected': RC.unspecifiedError,
  'not-authorized': RC.notAuthorized,
  'payload-format': RC.payloadFormatInvalid,
  quota: RC.quotaExceeded,
  rejected: RC.unspecifiedError,
};

/** SUBACK code of a refused subscription: MQTT 3.1.1 knows only 0x80 (failure); MQTT 5 says why. */
export function subackRefusalCode(version: ProtocolVersion, refusal: SubscribeRefusal): number {
  if (version !== 5) return 0x80;
  switch (refusal) {
    case 'not-authorized':
      return RC.notAuthorized;
    case 'invalid-filter':
      return RC.topicFilterInvalid;
    default:
      return RC.unspecifiedError;
  }
}
