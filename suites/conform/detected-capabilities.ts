import type { Capability } from '../targets/target.ts';

/**
 * What the run found out about the target before checking it; checks that need something missing are
 * skipped with the reason (never failed). Serialisable: it goes into the report.
 */
export interface DetectedCapabilities {
  /** Requests can come from a peer the spec does not exempt from tokens (127.0.0.2 on loopback targets). */
  remotePeer: Capability;
  /**
   * Auth checks from that peer can show something: false when the target answers it without a token
   * although the spec exempts only 127.0.0.1 and ::1 (then `exemptPeer` names it).
   */
  authChecks: Capability;
  exemptPeer?: string;
  /** The simulator's control interface (`--target sim` only). */
  control: Capability;
  /**
   * The target's MQTT TCP listener, and which form named it (`--mqtt`, config get
   * `mqtt_server.tcp_port` or `mqtt_runtime.server.tcp_port`, a node record's `extend.mqtt.mqtt_addr`).
   */
  mqttListener: Capability & { address?: string; source?: string };
  /** A way to act as an MQTT client: the listener, else the simulator's control. */
  mqttClient: Capability & { via?: string };
}
