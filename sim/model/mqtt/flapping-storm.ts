import type { ConnectInput, ConnectResult } from './broker-api.ts';

/** What a storm of reconnects did: connects admitted, and connects refused (a flapping ban, or another refusal). */
export interface FlappingStormOutcome {
  admitted: number;
  refused: number;
}

/**
 * A client reconnecting in a storm, as a flapping device does: `attempts` connects in a row at the
 * same virtual instant, each admitted one disconnected at once. With flapping detection on
 * (`MqttFlappingDetect`), more than `max_client_connections` of them ban the client for `ban_time`.
 * The chaos runner's and the scenario runner's `flapping` fault, and the library's
 * `cluster.mqtt.flappingStorm`.
 */
export function flappingStorm(
  cluster: { mqtt: { connect(input: ConnectInput): ConnectResult; disconnect(clientId: string, tenant: string): boolean } },
  clientId: string,
  attempts: number,
  tenant = 'default',
): FlappingStormOutcome {
  let admitted = 0;
  let refused = 0;
  for (let i = 0; i < attempts; i++) {
    const r = cluster.mqtt.connect({ tenant, clientId });
    if (r.ok) {
      admitted++;
      cluster.mqtt.disconnect(clientId, tenant);
    } else refused++;
  }
  return { admitted, refused };
}
