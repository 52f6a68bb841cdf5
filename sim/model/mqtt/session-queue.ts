import type { OfflineMessageConfig } from '../config/dynamic-config.ts';
import type { OutgoingMessage, PendingMessage } from './delivery.ts';
import type { SessionState } from './mqtt-model.ts';

/**
 * What a network client's session keeps for it while no connection takes its messages: QoS 1/2
 * messages it had not acknowledged when its connection ended, and messages routed to it while it
 * was offline (MqttOfflineMessage). Simulated clients never get here.
 */

/**
 * Keeps a message routed to an offline session, when MqttOfflineMessage is enabled and the message is
 * QoS 1 or 2, up to `max_messages_num` (0: no limit). Returns whether it was kept (otherwise it is
 * dropped, as for an offline simulated client).
 */
export function keepWhileOffline(session: SessionState, message: OutgoingMessage, cfg: OfflineMessageConfig, now: number): boolean {
  if (message.qos === 0 || !cfg.enable) return false;
  const pending = (session.pending ??= []);
  if (cfg.max_messages_num > 0 && pending.length >= cfg.max_messages_num) return false;
  pending.push({ ...message, queuedAt: now });
  return true;
}

/** Puts messages a connection left unacknowledged in front of what the session keeps (they are older). */
export function keepUnacknowledged(session: SessionState, messages: readonly PendingMessage[]): void {
  if (messages.length > 0) session.pending = [...messages, ...(session.pending ?? [])];
}

/**
 * Empties the session's queue for a reconnecting client: what is to be sent, in order. Messages never
 * sent are left out once expired (MQTT 5 message expiry, or older than `expireMs`, 0: never); a message
 * already sent is resent whatever its age, as MQTT requires.
 */
export function takePending(session: SessionState, now: number, expireMs: number): PendingMessage[] {
  const pending = session.pending ?? [];
  session.pending = undefined;
  return pending.filter((m) => {
    if (m.packetId !== undefined) return true;
    if (m.expiresAt !== null && m.expiresAt <= now) return false;
    return !(expireMs > 0 && now - m.queuedAt >= expireMs);
  });
}
