import type { MqttClientSession } from '../targets/target.ts';
import type { ConformContext } from './conform-context.ts';

/** The run's listed MQTT clients: how to close them, and what went wrong as notes. */
export interface ListedClients {
  close: () => Promise<void>;
  notes: string[];
}

/**
 * MQTT clients of the run that stay connected while the endpoints are checked, when the target has an
 * MQTT listener: one with an exclusive subscription and two sharing one, so the client, session and
 * subscription lists and the subscription detail have records of the run's own to check (an empty
 * cluster has none). The embedded simulator has its own population, and its control target acts
 * through the model: only a real listener gets these. Returns how to close them, and problems as notes.
 */
export async function connectListedClients(ctx: ConformContext): Promise<ListedClients> {
  const driver = ctx.mqtt;
  const none = { close: async () => {}, notes: [] as string[] };
  if (!driver || !ctx.capabilities?.mqttListener.available) return none;
  const base = `conform/${ctx.seed}/listed`;
  const plan: [string, string][] = [
    [`conform-${ctx.seed}-listed-0`, `${base}/#`],
    [`conform-${ctx.seed}-listed-1`, `$share/conform-${ctx.seed}/${base}/+`],
    [`conform-${ctx.seed}-listed-2`, `$share/conform-${ctx.seed}/${base}/+`],
  ];
  const sessions: MqttClientSession[] = [];
  const notes: string[] = [];
  for (const [clientId, filter] of plan) {
    const session = await driver.connect(clientId);
    if ('ok' in session) {
      notes.push(`MQTT client ${clientId} for the client, session and subscription lists could not connect: ${session.reason}`);
      continue;
    }
    sessions.push(session);
    const sub = await session.subscribe(filter, 1);
    if (!sub.ok) notes.push(`MQTT client ${clientId} could not subscribe to ${filter}: ${sub.reason}`);
  }
  return {
    notes,
    close: async () => {
      await Promise.all(sessions.map((s) => s.close()));
    },
  };
}
