/**
 * Test support for the crash torture (crash-torture.ts): the MQTT writer. Client `cq<n>` connects
 * with a persistent session (CONNACK), subscribes to `ct/s/<n>` (SUBACK) and publishes a retained
 * message on `ct/r/<n>` at QoS 1 (PUBACK), then disconnects; each ack is an acknowledged write.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { ABSENT, PRESENT, type Step } from './crash-steps.ts';
import { NotAcknowledged, UnexpectedAnswer } from './crash-http.ts';
import type { WriterContext } from './crash-writers.ts';

const CLOSED = /connection closed|client disconnecting|ECONNRESET|EPIPE|ECONNREFUSED/i;

/** The writer's client between its steps, and the way the harness abandons it at a kill. */
export class MqttWriterState {
  client: MqttClient | undefined;
  private abandon: (() => void) | undefined;
  private abandoned: Promise<never> = this.newLife();

  /** Resolves with what `ack` resolves with, unless the server is killed first. */
  race<T>(ack: Promise<T>): Promise<T> {
    const unanswered = ack.catch((e: Error) => {
      // The connection went away before the ack (mqtt.js fails what it still waits for): not answered.
      throw CLOSED.test(e?.message ?? '') ? new NotAcknowledged(e.message, { cause: e }) : e;
    });
    return Promise.race([unanswered, this.abandoned]);
  }

  /** At a kill: whatever ack is awaited is not coming; the client is dropped. */
  kill(): void {
    this.abandon?.();
    this.client?.end(true);
    this.client = undefined;
    this.abandoned = this.newLife();
  }

  private newLife(): Promise<never> {
    const p = new Promise<never>((_, reject) => (this.abandon = () => reject(new NotAcknowledged('the server was killed'))));
    p.catch(() => {});
    return p;
  }
}

export function mqttSteps(state: MqttWriterState, i: number, { mqttPort }: WriterContext): Step {
  const n = Math.floor(i / 3);
  const clientId = `cq${n}`;
  if (i % 3 === 0) {
    return {
      label: `MQTT connect ${clientId} (persistent session)`,
      async run() {
        const previous = state.client;
        state.client = undefined;
        if (previous) await state.race(previous.endAsync()).catch(() => previous.end(true));
        const client = mqtt.connect(`mqtt://127.0.0.1:${mqttPort}`, {
          clientId,
          protocolVersion: 5,
          clean: false,
          properties: { sessionExpiryInterval: 864_000 },
          reconnectPeriod: 0,
          connectTimeout: 10_000,
        });
        client.on('error', () => {}); // a refused or reset connection shows as an unanswered step
        const connack = new Promise<unknown>((resolve, reject) => {
          client.once('connect', (packet) => resolve({ sessionPresent: packet.sessionPresent }));
          client.once('close', () => reject(new NotAcknowledged('closed before CONNACK')));
        });
        state.client = client;
        return state.race(connack);
      },
      async presence(view) {
        const rows = await view.list(`/api/mqtt/session/list?client_id=${clientId}`);
        return rows.some((r) => r.client_id === clientId) ? PRESENT : ABSENT;
      },
    };
  }
  if (i % 3 === 1) {
    return {
      label: `MQTT subscribe ${clientId} ct/s/${n}`,
      async run() {
        if (!state.client) throw new NotAcknowledged('no connection');
        const granted = await state.race(state.client.subscribeAsync(`ct/s/${n}`, { qos: 1 }));
        if (granted.some((g) => g.qos > 2)) throw new UnexpectedAnswer(`SUBACK refused: ${JSON.stringify(granted)}`);
        return granted;
      },
      async presence(view) {
        const rows = await view.list(`/api/mqtt/subscribe/list?client_id=${clientId}`);
        return rows.some((r) => r.client_id === clientId && r.path === `ct/s/${n}`) ? PRESENT : ABSENT;
      },
    };
  }
  return {
    label: `MQTT publish retained ct/r/${n} (QoS 1)`,
    async run() {
      if (!state.client) throw new NotAcknowledged('no connection');
      return state.race(state.client.publishAsync(`ct/r/${n}`, `r${n}`, { qos: 1, retain: true })).then(() => 'puback');
    },
    async presence(view) {
      const detail = await view.api.read(`/api/cluster/topic/detail?tenant=default&topic_name=ct/r/${n}`).catch((e: unknown) => {
        if (e instanceof NotAcknowledged) throw e;
        return undefined; // no such topic: nothing was retained there
      });
      const payload = detail?.retain_message?.payload;
      if (payload === undefined || payload === null) return ABSENT;
      const text = Buffer.from(payload).toString();
      return text === `r${n}` ? PRESENT : { state: 'partial', why: `retained payload ${JSON.stringify(text)}` };
    },
  };
}
