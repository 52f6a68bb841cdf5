import type { EndpointContract } from '../../contract/core/types.ts';
import { type ConformContext, describeAnswer, fail, pass, skip, succeeded } from '../conform/conform-context.ts';
import type { Exchange } from '../conform/exchange.ts';
import type { ScenarioEnv } from './scenario-suite.ts';
import { dataOf, letTimePass, pollFor, readList, type Row } from '../conform/check-helpers.ts';
import { attempt, CONNECTOR } from './connector-requests.ts';

/** Polls the connector's list record every 250 ms of target time (up to `maxMs`; see pollFor) until it is Running; returns it and the time waited. */
async function untilRunning(ctx: ConformContext, fields: Row, maxMs: number): Promise<{ row?: Row; waited: number }> {
  let row: Row | undefined;
  const { waited } = await pollFor(ctx, maxMs, 250, async () => {
    const got = await readList(ctx, '/api/cluster/connector/list', { tenant: fields.tenant, connector_name: fields.connector_name });
    row = got?.rows.find((r) => r.connector_name === fields.connector_name && r.tenant === fields.tenant);
    return row?.status === 'Running' ? row : undefined;
  });
  return { row, waited };
}

/**
 * What a connector does once created (decisions: runtime, last-send-time-zero, delivery; States: counters
 * reset on a restart). A connector of the run's own is created on a topic filter nobody else publishes to,
 * taken up by a node within a second (the least loaded one, when no other connector waits), read while it
 * has sent nothing, fed three messages by an MQTT client, and — with the simulator's control — stopped and
 * resumed, after which its counters start from zero again.
 */
export async function runConnectorRuntime(ctx: ConformContext, e: EndpointContract, env: ScenarioEnv): Promise<void> {
  const ids = [
    'connector.runtime-assigned',
    'connector.detail-before-first-send',
    'connector.delivery',
    'connector.counters-reset',
  ] as const;
  const assertions = [
    'decision.connector.runtime',
    'decision.connector.last-send-time-zero',
    'decision.connector.delivery',
    'states.connector.counters-reset',
  ];
  const skipAll = async (from: number, why: string) => {
    for (let i = from; i < ids.length; i++) await ctx.check(e, ids[i], assertions[i], () => skip(why));
  };
  const { load, expected } = await connectorLoad(ctx);
  const topic = `conform/${ctx.seed}/runtime`;
  // In the tenant the run's MQTT client publishes in, when it is known (a listener's clients may all
  // land in one tenant, e.g. `default`), so the delivery check below can feed the connector.
  const tenant = ctx.mqtt?.tenant !== undefined ? { tenant: ctx.mqtt.tenant } : {};
  const { ex: made, fields } = await attempt(ctx, env.resources, '-rt', { topic_name: `${topic}/#`, ...tenant }, true);
  if (!succeeded(made)) return skipAll(0, `a connector could not be created (${describeAnswer(made)})`);
  try {
    const first = await untilRunning(ctx, fields, 3000);
    await ctx.check(e, ids[0], assertions[0], () => {
      if (first.row?.status !== 'Running')
        return fail(
          `the new connector is still ${JSON.stringify(first.row?.status)} ${first.waited} ms after its create; an Idle connector is assigned every second`,
        );
      // Only the simulator's virtual clock times the assignment exactly; over HTTP, polling and load add
      // wall time, so there Running within the wait is the evidence.
      if (ctx.target.control && first.waited > 1250)
        return fail(`the new connector became Running only after ${first.waited} ms; an Idle connector is assigned every second`);
      const node = Number(first.row.broker_id);
      if (expected !== undefined && node !== expected)
        return fail(
          `the new connector runs on node ${node}, but node ${expected} ran the fewest connectors (${[...load].map(([id, n]) => `node ${id}: ${n}`).join(', ')})`,
        );
      return pass(
        `Running on node ${node} after ${first.waited} ms${expected !== undefined ? `, the node with the fewest connectors (${[...load].map(([id, n]) => `node ${id}: ${n}`).join(', ')})` : ' (other connectors were waiting too, so which node is not judged)'}`,
      );
    });
    if (first.row?.status !== 'Running') return skipAll(1, 'the connector never ran');
    const detailOf = () => ctx.call(e, { tenant: fields.tenant, connector_name: fields.connector_name });
    const fresh = await detailOf();
    await ctx.check(e, ids[1], assertions[1], () => {
      const d = dataOf(fresh);
      if (!succeeded(fresh) || !d) return fail(`the running connector's detail was refused: ${describeAnswer(fresh)}`, fresh);
      return d.last_send_time === 0 && d.last_msg === null
        ? pass('last_send_time 0 and last_msg null before the first send')
        : fail(
            `before any message reached it: last_send_time ${JSON.stringify(d.last_send_time)}, last_msg ${JSON.stringify(d.last_msg)} (0 and null)`,
            fresh,
          );
    });
    const delivered = await checkDelivery(ctx, e, ids[2], assertions[2], topic, fields, detailOf);
    await checkCountersReset(ctx, e, ids[3], assertions[3], fields, detailOf, delivered);
  } finally {
    await env.resources.delete(CONNECTOR, fields, 'cleanup');
  }
}

/** The brokers' connector counts before the run's connector, and the node the new one should go to (undefined when others wait). */
async function connectorLoad(ctx: ConformContext): Promise<{ load: Map<number, number>; expected: number | undefined }> {
  const status = ctx.endpoint('GET', '/api/status');
  const nodes = status ? ((dataOf(await ctx.call(status, {}, 'fixture'))?.broker_node_list ?? []) as Row[]) : [];
  const brokers = nodes
    .filter((n) => !Array.isArray(n.roles) || n.roles.includes('broker'))
    .map((n) => Number(n.node_id))
    .sort((a, b) => a - b);
  const before = (await readList(ctx, '/api/cluster/connector/list', {}, 'fixture'))?.rows ?? [];
  const load = new Map<number, number>(brokers.map((id) => [id, 0]));
  for (const r of before)
    if (r.broker_id !== null && r.broker_id !== undefined && load.has(Number(r.broker_id)))
      load.set(Number(r.broker_id), load.get(Number(r.broker_id))! + 1);
  const othersWaiting = before.some((r) => r.status === 'Idle');
  const expected =
    brokers.length > 0 && !othersWaiting ? brokers.reduce((best, id) => (load.get(id)! < load.get(best)! ? id : best)) : undefined;
  return { load, expected };
}

/** Three messages published on the connector's topic are forwarded within a second; true when they were. */
async function checkDelivery(
  ctx: ConformContext,
  e: EndpointContract,
  id: string,
  assertion: string,
  topic: string,
  fields: Row,
  detailOf: () => Promise<Exchange>,
): Promise<boolean> {
  const driver = ctx.mqtt;
  let delivered = false;
  await ctx.check(e, id, assertion, async () => {
    if (!driver) return skip("needs an MQTT client to publish to the connector's topic");
    if (driver.tenant !== undefined && driver.tenant !== fields.tenant)
      return skip(`the MQTT client publishes in tenant ${driver.tenant}, the connector is in ${String(fields.tenant)}`);
    const session = await driver.connect(`conform-${ctx.seed}-feeder`);
    if ('ok' in session) return skip(`the MQTT client could not connect: ${session.reason}`);
    try {
      for (let i = 1; i <= 3; i++) {
        const r = await session.publish(`${topic}/m${i}`, `conform message ${i}`, { qos: 1, retain: false });
        if (!r.ok) return skip(`a message could not be published: ${r.reason}`);
      }
    } finally {
      await session.close();
    }
    let waited = 0;
    let d: Row | undefined;
    let last: Exchange | undefined;
    for (; waited <= 3000; waited += 250) {
      last = await detailOf();
      d = dataOf(last);
      if (Number(d?.send_success_total) >= 3) break;
      await letTimePass(ctx, 250);
    }
    if (Number(d?.send_success_total) !== 3)
      return fail(
        `3 messages were published on ${topic}/…, the connector's detail shows send_success_total ${JSON.stringify(d?.send_success_total)} after ${waited} ms`,
        last,
      );
    if (waited > 1250)
      return fail(`the 3 messages were forwarded only after ${waited} ms; a Running connector forwards every second`, last);
    if (d!.last_msg !== 'conform message 3' || !(Number(d!.last_send_time) > 0))
      return fail(
        `after the sends: last_msg ${JSON.stringify(d!.last_msg)}, last_send_time ${JSON.stringify(d!.last_send_time)} (the last message and its time)`,
        last,
      );
    delivered = true;
    return pass(`the 3 messages were forwarded within ${waited} ms: send_success_total 3, last_msg the last one`);
  });
  return delivered;
}

/** A stop and a resume through the simulator's control set the connector's counters back to zero. */
async function checkCountersReset(
  ctx: ConformContext,
  e: EndpointContract,
  id: string,
  assertion: string,
  fields: Row,
  detailOf: () => Promise<Exchange>,
  delivered: boolean,
): Promise<void> {
  await ctx.check(e, id, assertion, async () => {
    const control = ctx.target.control;
    if (!control) return skip("a restart of a connector happens outside the API; only the simulator's control can stop and resume one");
    if (!delivered) return skip('the connector had no counts to reset');
    control.stopConnector(String(fields.tenant), String(fields.connector_name));
    control.resumeConnector(String(fields.tenant), String(fields.connector_name));
    const again = await untilRunning(ctx, fields, 3000);
    if (again.row?.status !== 'Running') return skip(`the resumed connector did not run again (${JSON.stringify(again.row?.status)})`);
    const ex = await detailOf();
    const d = dataOf(ex);
    if (!succeeded(ex) || !d) return fail(`the restarted connector's detail was refused: ${describeAnswer(ex)}`, ex);
    return d.send_success_total === 0 && d.send_fail_total === 0
      ? pass('after a stop and a restart send_success_total and send_fail_total are 0 again (were 3 and 0)')
      : fail(
          `the connector restarted, but its counters were kept: send_success_total ${JSON.stringify(d.send_success_total)}, send_fail_total ${JSON.stringify(d.send_fail_total)}`,
          ex,
        );
  });
}
