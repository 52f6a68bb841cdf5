/**
 * MQTT enumerations and the text labels the API shows for them (subscription list, session last
 * will, client record). The labels are the contract's, so every view spells them as its schemas do.
 */

import { CONNECTION_TYPES, QOS_LABELS, RETAIN_HANDLING_LABELS } from '../../../contract/endpoints/mqtt.ts';

export { CONNECTION_TYPES, QOS_LABELS, RETAIN_HANDLING_LABELS };
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

/** MQTT 3.1 (protocol level 3), 3.1.1 (level 4) and 5. */
export type ProtocolVersion = 3 | 4 | 5;

export type QoS = 0 | 1 | 2;
export type QosLabel = (typeof QOS_LABELS)[number];

/** 0: send retained messages on every subscribe; 1: only on a new subscription; 2: never. */
export type RetainHandling = 0 | 1 | 2;
export type RetainHandlingLabel = (typeof RETAIN_HANDLING_LABELS)[number];

/** `MQTT3`, `MQTT4`, `MQTT5`: network_connection.protocol and the subscription list's protocol. */
export const protocolLabel = (v: ProtocolVersion): 'MQTT3' | 'MQTT4' | 'MQTT5' => `MQTT${v}`;

/** `Mqtt3`, `Mqtt4`, `Mqtt5`: the heartbeat object's protocol. */
export const heartbeatProtocolLabel = (v: ProtocolVersion): 'Mqtt3' | 'Mqtt4' | 'Mqtt5' => `Mqtt${v}`;

export const qosLabel = (q: QoS): QosLabel => QOS_LABELS[q];
export const retainHandlingLabel = (r: RetainHandling): RetainHandlingLabel => RETAIN_HANDLING_LABELS[r];
