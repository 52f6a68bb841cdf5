import { describe, expect, it } from 'vitest';
import { CONNECTOR_CATALOGUE } from '../../../contract/core/connector-catalogue.ts';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import type { Connector, QueuedMessage } from './connector-types.ts';
import type { SimulatedSink } from './simulated-sink.ts';

const LIST = '/api/cluster/connector/list';
const DETAIL = '/api/cluster/connector/detail';
const CREATE = '/api/cluster/connector/create';
const DELETE = '/api/cluster/connector/delete';

const fileConnector = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  tenant: 'default',
  connector_name: 'c1',
  connector_type: 'file',
  config: JSON.stringify({ local_file_path: '/tmp/c1.log' }),
  topic_name: 'sensors/#',
  failure_strategy: { strategy: 'discard' },
  ...over,
});

/** Posts with virtual-time gaps so the per-path rate limit (50/s) never interferes. */
async function post(sim: InProcessSim, url: string, body: unknown) {
  sim.advance(20);
  return sim.post(url, body);
}

async function listRow(sim: InProcessSim, tenant: string, name: string) {
  const res = await sim.get(`${LIST}?tenant=${encodeURIComponent(tenant)}&connector_name=${encodeURIComponent(name)}`);
  return res.json.data.data.find((r: any) => r.connector_name === name);
}

const detail = (sim: InProcessSim, tenant: string, name: string) =>
  sim.get(`${DETAIL}?tenant=${encodeURIComponent(tenant)}&connector_name=${encodeURIComponent(name)}`);

const msg = (payload: string, timestamp = 0) => ({ payload, timestamp });

/** Advances to just after the next scheduler second. */
const nextSecond = (sim: InProcessSim) => sim.advance(1000);

describe('connectors over HTTP', () => {
  it('creates every catalogue type with its minimal config; the list shows the defaults; the scheduler spreads them over the nodes', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    for (const type of CONNECTOR_CATALOGUE) {
      const res = await post(
        sim,
        CREATE,
        fileConnector({ connector_name: `c-${type.id}`, connector_type: type.id.toUpperCase(), config: JSON.stringify(type.example) }),
      );
      expect(res.json, type.id).toEqual({ code: 0, message: 'success', data: 'success' });
    }
    const list = await sim.get(`${LIST}?tenant=default&limit=100`);
    expect(list.json.data.total_count).toBe(17);
    for (const type of CONNECTOR_CATALOGUE) {
      const row = list.json.data.data.find((r: any) => r.connector_name === `c-${type.id}`);
      expect(row).toMatchObject({ tenant: 'default', connector_type: type.id, topic_name: 'sensors/#', status: 'Idle', broker_id: null });
      const config = JSON.parse(row.config);
      for (const key of type.keys) {
        if (type.example[key.name] !== undefined) expect(config[key.name]).toEqual(type.example[key.name]);
        else if (key.default !== undefined) expect(config[key.name], `${type.id}.${key.name}`).toEqual(key.default);
        else expect(config).not.toHaveProperty(key.name);
      }
      expect(row.create_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(row.update_time).toBe(row.create_time);
    }
    nextSecond(sim);
    const running = (await sim.get(`${LIST}?limit=100`)).json.data.data;
    expect(running.every((r: any) => r.status === 'Running')).toBe(true);
    const perNode = new Map<string, number>();
    for (const r of running) perNode.set(r.broker_id, (perNode.get(r.broker_id) ?? 0) + 1);
    expect(Object.fromEntries(perNode)).toEqual({ '1': 6, '2': 6, '3': 5 });
    expect(sim.cluster.connectors.count()).toBe(17);
    expect(sim.cluster.connectors.runningCount()).toBe(17);
  });

  it('refuses bad config, type, strategy and topic filter with a 400 naming the parameter', async () => {
    const sim = new InProcessSim();
    const cases: [Record<string, unknown>, string][] = [
      [{ config: JSON.stringify({ rotation_strategy: 'size' }) }, 'config.local_file_path'],
      [{ config: '{not json' }, 'config is not valid JSON'],
      [{ config: '[1,2]' }, 'config must be the JSON text of an object'],
      [{ config: 'x'.repeat(4097) }, "'config'"],
      [{ config: '' }, "'config'"],
      [{ connector_type: 'ftp' }, 'connector_type must be one of kafka'],
      [{ connector_type: 'x'.repeat(51) }, "'connector_type'"],
      [
        { connector_type: 'kafka', config: JSON.stringify({ bootstrap_servers: 'b:9092', topic: 't', batch_size: 0 }) },
        'config.batch_size must be between 1 and 1048576 (got 0)',
      ],
      [
        { failure_strategy: { strategy: 'discard_after_retry', retry_total_times: 0, wait_time_ms: 1 } },
        'failure_strategy.retry_total_times',
      ],
      [{ failure_strategy: { strategy: 'discard_after_retry', wait_time_ms: 1 } }, 'failure_strategy.retry_total_times is required'],
      [{ failure_strategy: { strategy: 'nope' } }, 'failure_strategy.strategy'],
      [
        { failure_strategy: { strategy: 'discard', retry_total_times: 2 } },
        'failure_strategy.retry_total_times is not used by strategy discard',
      ],
      [{ failure_strategy: { strategy: 'dead_message_queue', topic_name: 'x'.repeat(257) } }, 'failure_strategy.topic_name'],
      [{ topic_name: 'a/#/b' }, 'topic_name must be an MQTT topic filter'],
      [{ tenant: 'x'.repeat(257) }, "'tenant'"],
      [{ connector_name: 'x'.repeat(129) }, "'connector_name'"],
      [{ topic_name: 'x'.repeat(257) }, "'topic_name'"],
    ];
    for (const [over, text] of cases) {
      const res = await post(sim, CREATE, fileConnector(over));
      expect(res.status, text).toBe(400);
      expect(res.json.code).toBe(400);
      expect(res.json.message).toContain(text);
    }
    expect(sim.cluster.connectors.count()).toBe(0);
  });

  it('accepts an omitted failure_strategy as discard and a config of exactly 4096 characters', async () => {
    const sim = new InProcessSim();
    const { failure_strategy: _omit, ...body } = fileConnector();
    expect((await post(sim, CREATE, body)).json.code).toBe(0);
    expect(sim.cluster.connectors.get('default', 'c1')!.failureStrategy).toEqual({ strategy: 'discard' });
    const base = JSON.stringify({ local_file_path: '/tmp/x.log', pad: '' });
    const config = JSON.stringify({ local_file_path: '/tmp/x.log', pad: 'p'.repeat(4096 - base.length) });
    expect(config).toHaveLength(4096);
    expect((await post(sim, CREATE, fileConnector({ connector_name: 'c2', config }))).json.code).toBe(0);
  });

  it('runs the lifecycle: Idle → Running → detail → delete, with the exact detail texts', async () => {
    const sim = new InProcessSim();
    expect((await post(sim, CREATE, fileConnector())).json.code).toBe(0);
    const idle = await listRow(sim, 'default', 'c1');
    expect(idle).toMatchObject({ status: 'Idle', broker_id: null });

    const notRunning = await detail(sim, 'default', 'c1');
    expect(notRunning.json).toMatchObject({ code: 1, message: 'Connector thread c1 does not exist.' });
    const unknown = await detail(sim, 'default', 'ghost');
    expect(unknown.json).toMatchObject({ code: 1, message: 'Connector ghost does not exist.' });
    expect((await detail(sim, 'acme', 'c1')).json.message).toBe('Connector c1 does not exist.');

    nextSecond(sim);
    const running = await listRow(sim, 'default', 'c1');
    expect(running).toMatchObject({ status: 'Running', broker_id: '1' });
    expect(running.update_time > idle.update_time).toBe(true);
    expect(running.create_time).toBe(idle.create_time);
    expect((await detail(sim, 'default', 'c1')).json).toEqual({
      code: 0,
      message: 'success',
      data: { last_send_time: 0, send_success_total: 0, send_fail_total: 0, last_msg: null },
    });

    expect((await post(sim, DELETE, { tenant: 'default', connector_name: 'c1' })).json.data).toBe('success');
    expect(await listRow(sim, 'default', 'c1')).toBeUndefined();
    expect(sim.cluster.connectors.runningCount()).toBe(0);
    const again = await post(sim, DELETE, { tenant: 'default', connector_name: 'c1' });
    expect(again.json).toMatchObject({ code: 1, message: 'Connector c1 does not exist.' });
  });

  it('keeps names unique per tenant', async () => {
    const sim = new InProcessSim();
    expect((await post(sim, CREATE, fileConnector())).json.code).toBe(0);
    const dup = await post(sim, CREATE, fileConnector());
    expect(dup.json.code).toBe(1);
    expect(dup.json.message).toContain('Connector c1 already exists');
    expect((await post(sim, CREATE, fileConnector({ tenant: 'acme' }))).json.code).toBe(0);
    expect((await sim.get(`${LIST}?connector_name=c1`)).json.data.total_count).toBe(2);
    expect((await sim.get(`${LIST}?tenant=acme`)).json.data.total_count).toBe(1);
    const sorted = await sim.get(`${LIST}?sort_field=tenant&sort_by=desc`);
    expect(sorted.json.data.data.map((r: any) => r.tenant)).toEqual(['default', 'acme']);
  });
});

describe('connector scheduler', () => {
  it('returns a connector to Idle when its node goes offline, reassigns it and resets its counters', async () => {
    const sim = new InProcessSim({ nodes: 3 });
    const connectors = sim.cluster.connectors;
    connectors.create(fileConnector() as any);
    nextSecond(sim);
    const c = connectors.get('default', 'c1')!;
    expect(c.brokerId).toBe(1);
    connectors.onMessage('default', 'sensors/a', msg('one'));
    nextSecond(sim);
    expect(c.stats.sendSuccessTotal).toBe(1);

    sim.cluster.nodes.get(1)!.online = false;
    nextSecond(sim);
    const trail = sim.cluster.engine.trace
      .tail(20)
      .filter((e) => e.kind === 'connector.status')
      .map((e) => e.detail as any);
    expect(trail.slice(-2)).toEqual([
      { tenant: 'default', name: 'c1', status: 'Idle', brokerId: null, reason: 'node-offline' },
      { tenant: 'default', name: 'c1', status: 'Running', brokerId: 2, reason: 'assigned' },
    ]);
    expect((await detail(sim, 'default', 'c1')).json.data).toMatchObject({ send_success_total: 0, last_msg: null });

    for (const n of sim.cluster.nodes.all()) n.online = false;
    nextSecond(sim);
    expect(c).toMatchObject({ status: 'Idle', brokerId: null });
    expect((await detail(sim, 'default', 'c1')).json.message).toBe('Connector thread c1 does not exist.');
    nextSecond(sim);
    expect(c.status).toBe('Idle');

    sim.cluster.nodes.get(3)!.online = true;
    nextSecond(sim);
    expect(c).toMatchObject({ status: 'Running', brokerId: 3 });
  });

  it('stops and resumes, refusing invalid transitions', async () => {
    const sim = new InProcessSim();
    const connectors = sim.cluster.connectors;
    connectors.create(fileConnector() as any);
    nextSecond(sim);
    const stopped = connectors.stop('default', 'c1');
    expect(stopped).toMatchObject({ status: 'Stopped', brokerId: null });
    expect(() => connectors.stop('default', 'c1')).toThrow('already Stopped');
    expect((await detail(sim, 'default', 'c1')).json.message).toBe('Connector thread c1 does not exist.');
    nextSecond(sim);
    expect((await listRow(sim, 'default', 'c1')).status).toBe('Stopped');

    expect(connectors.resume('default', 'c1').status).toBe('Idle');
    expect(() => connectors.resume('default', 'c1')).toThrow('not Stopped');
    nextSecond(sim);
    expect((await listRow(sim, 'default', 'c1')).status).toBe('Running');
    expect(() => connectors.stop('default', 'ghost')).toThrow('Connector ghost does not exist.');
  });
});

describe('connector delivery', () => {
  it('delivers messages whose topic matches the filter in the tenant, updating the counters', async () => {
    const sim = new InProcessSim();
    const connectors = sim.cluster.connectors;
    connectors.create(fileConnector({ topic_name: 'factory/+/temperature' }) as any);
    connectors.onMessage('default', 'factory/f1/temperature', msg('before running'));
    nextSecond(sim);
    const t = sim.cluster.now();
    connectors.onMessage('default', 'factory/f1/temperature', msg('21.5', t));
    connectors.onMessage('default', 'factory/f2/temperature', msg('x'.repeat(300), t));
    connectors.onMessage('default', 'factory/f1/humidity', msg('no'));
    connectors.onMessage('acme', 'factory/f1/temperature', msg('other tenant'));
    expect(connectors.queued('default', 'c1')).toBe(2);
    nextSecond(sim);
    const d = (await detail(sim, 'default', 'c1')).json.data;
    expect(d).toEqual({
      last_send_time: Math.floor(sim.cluster.now() / 1000),
      send_success_total: 2,
      send_fail_total: 0,
      last_msg: 'x'.repeat(256),
    });
    expect(connectors.queued('default', 'c1')).toBe(0);
  });

  it("sends in batches of the type's message batch size (100 when the type has none)", () => {
    const sim = new InProcessSim();
    const connectors = sim.cluster.connectors;
    connectors.create({
      tenant: 'default',
      connector_name: 'p',
      connector_type: 'pulsar',
      config: JSON.stringify({ server: 'pulsar://p:6650', topic: 't', batch_size: 2 }),
      topic_name: '#',
    });
    connectors.create(fileConnector({ topic_name: '#' }) as any);
    nextSecond(sim);
    for (let i = 0; i < 205; i++) connectors.onMessage('default', `t/${i}`, msg(`m${i}`));
    nextSecond(sim);
    const sends = sim.cluster.engine.trace
      .tail(500)
      .filter((e) => e.kind === 'connector.send')
      .map((e) => e.detail as any);
    expect(sends.filter((s) => s.name === 'p')).toHaveLength(103);
    expect(sends.filter((s) => s.name === 'c1').map((s) => s.ok)).toEqual([100, 100, 5]);
    expect(connectors.get('default', 'p')!.stats.sendSuccessTotal).toBe(205);
  });
});

/** A sink that fails the first `failures` attempts of every connector, then delivers. */
function flakySink(failures: number): (c: Connector) => SimulatedSink {
  let attempts = 0;
  return () => ({
    send(batch: readonly QueuedMessage[]) {
      attempts++;
      if (attempts <= failures) return { ok: 0, failed: batch.map((m) => ({ msg: m, error: `target refused attempt ${attempts}` })) };
      return { ok: batch.length, failed: [] };
    },
  });
}

describe('failure strategies', () => {
  function running(strategy: Record<string, unknown>, sinkFailures: number) {
    const sim = new InProcessSim();
    sim.cluster.connectors.create(fileConnector({ failure_strategy: strategy }) as any);
    nextSecond(sim); // t = 1000: running
    sim.cluster.connectors.setSinkFactory(flakySink(sinkFailures));
    sim.cluster.connectors.onMessage('default', 'sensors/a', msg('a', 1500));
    sim.cluster.connectors.onMessage('default', 'sensors/b', msg('b', 1500));
    return { sim, c: sim.cluster.connectors.get('default', 'c1')! };
  }

  it('discard drops failed messages at once and counts them', () => {
    const { sim, c } = running({ strategy: 'discard' }, Infinity);
    nextSecond(sim);
    expect(c.stats).toMatchObject({ sendSuccessTotal: 0, sendFailTotal: 2, lastSendTimeMs: null });
    const kinds = sim.cluster.engine.trace.tail(5).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'connector.send')).toHaveLength(1);
    expect(kinds).toContain('connector.discard');
  });

  it('discard_after_retry retries retry_total_times, wait_time_ms apart, then drops; new messages wait meanwhile', () => {
    const { sim, c } = running({ strategy: 'discard_after_retry', retry_total_times: 2, wait_time_ms: 300 }, Infinity);
    nextSecond(sim); // t = 2000: first attempt fails
    sim.cluster.connectors.onMessage('default', 'sensors/c', msg('c'));
    expect(c.stats.sendFailTotal).toBe(0);
    sim.advance(300); // retry 1
    expect(c.stats.sendFailTotal).toBe(0);
    sim.advance(300); // retry 2, then give up; the queued message goes out (and fails, a new batch)
    expect(c.stats.sendFailTotal).toBe(2);
    const sends = sim.cluster.engine.trace
      .tail(20)
      .filter((e) => e.kind === 'connector.send')
      .map((e) => [e.at - sim.cluster.options.epochMs, (e.detail as any).attempt, (e.detail as any).failed]);
    expect(sends).toEqual([
      [2000, 0, 2],
      [2300, 1, 2],
      [2600, 2, 2],
      [2600, 0, 1],
    ]);
  });

  it('a retry that succeeds counts the messages as delivered', () => {
    const { sim, c } = running({ strategy: 'discard_after_retry', retry_total_times: 3, wait_time_ms: 100 }, 2);
    nextSecond(sim);
    sim.advance(200);
    expect(c.stats).toMatchObject({ sendSuccessTotal: 2, sendFailTotal: 0, lastMsg: 'b' });
  });

  it("dead_message_queue writes one dead-letter record per message to the tenant's dead-letter topic", () => {
    const { sim, c } = running(
      { strategy: 'dead_message_queue', retry_total_times: 1, wait_time_ms: 250, topic_name: 'dlq/sensors' },
      Infinity,
    );
    const writes: { tenant: string; topic: string; record: { key?: string; payload: string; timestamp: number } }[] = [];
    (sim.cluster.storage as any).appendToTopic = (tenant: string, topic: string, record: any) => writes.push({ tenant, topic, record });
    nextSecond(sim);
    sim.advance(250);
    expect(c.stats.sendFailTotal).toBe(2);
    expect(writes).toHaveLength(2);
    const now = sim.cluster.now();
    expect(writes[0]).toMatchObject({ tenant: 'default', topic: 'dlq/sensors', record: { timestamp: now } });
    const record = JSON.parse(writes[0].record.payload);
    expect(record).toEqual({
      connector_name: 'c1',
      source_topic: 'sensors/a',
      error_message: 'target refused attempt 2',
      retry_times: 1,
      original_key: null,
      original_data: [...Buffer.from('a')],
      original_timestamp: 1500,
      dead_letter_timestamp: now,
    });
    expect(sim.cluster.engine.trace.tail(3).map((e) => e.kind)).toContain('connector.dead_letter');
  });

  it('records a clear error instead of crashing when the dead-letter topic cannot be created', () => {
    const { sim, c } = running({ strategy: 'dead_message_queue', retry_total_times: 1, wait_time_ms: 10 }, Infinity);
    // The tenant's topic quota is full, so the dead-letter topic is refused as any new topic would be.
    const used = sim.cluster.topics.all().filter((t) => t.tenant === 'default').length;
    sim.cluster.tenants.update({ tenant_name: 'default', config: { max_topics: used } });
    nextSecond(sim);
    sim.advance(10);
    expect(c.stats.sendFailTotal).toBe(2);
    const error = sim.cluster.engine.trace.tail(5).find((e) => e.kind === 'connector.dead_letter.error');
    expect((error?.detail as any).writeError).toMatch(
      /^writing to dead-letter topic \S+ failed: Tenant default has reached its topic quota/,
    );
    expect(sim.cluster.topics.all().filter((t) => t.tenant === 'default')).toHaveLength(used);
  });

  it('the default sink fails every send to a target marked down, and delivers again once it is up', () => {
    const sim = new InProcessSim();
    const connectors = sim.cluster.connectors;
    connectors.create({
      tenant: 'default',
      connector_name: 'hook',
      connector_type: 'webhook',
      config: JSON.stringify({ url: 'http://hook.local/x' }),
      topic_name: '#',
    });
    nextSecond(sim);
    connectors.setTargetDown('http://hook.local/x', true);
    connectors.onMessage('default', 'a', msg('1'));
    nextSecond(sim);
    connectors.setTargetDown('http://hook.local/x', false);
    connectors.onMessage('default', 'a', msg('2'));
    nextSecond(sim);
    expect(connectors.get('default', 'hook')!.stats).toMatchObject({ sendSuccessTotal: 1, sendFailTotal: 1, lastMsg: '2' });
  });

  it("a deleted connector's pending retries do nothing", () => {
    const { sim, c } = running({ strategy: 'discard_after_retry', retry_total_times: 5, wait_time_ms: 100 }, Infinity);
    nextSecond(sim);
    sim.cluster.connectors.delete('default', 'c1');
    const before = sim.cluster.engine.trace.length;
    sim.advance(1000);
    const after = sim.cluster.engine.trace.tail(1000).filter((e) => e.index >= before);
    expect(after.filter((e) => e.kind.startsWith('connector.'))).toEqual([]);
    expect(c.stats.sendFailTotal).toBe(0);
  });
});

describe('demo and determinism', () => {
  it('seeds four valid connectors across tenants that all start', () => {
    const sim = new InProcessSim();
    sim.cluster.connectors.seedDemo();
    nextSecond(sim);
    const all = sim.cluster.connectors.all();
    expect(all.map((c) => [c.tenant, c.connector_type, c.status])).toEqual([
      ['acme', 'kafka', 'Running'],
      ['default', 'webhook', 'Running'],
      ['default', 'file', 'Running'],
      ['globex', 'postgres', 'Running'],
    ]);
    expect(new Set(all.map((c) => c.failureStrategy.strategy))).toEqual(new Set(['discard', 'discard_after_retry', 'dead_message_queue']));
  });

  async function run(seed: number): Promise<string> {
    const sim = new InProcessSim({ seed, nodes: 3 });
    sim.cluster.connectors.seedDemo();
    await post(sim, CREATE, fileConnector({ topic_name: '#' }));
    for (let s = 0; s < 5; s++) {
      nextSecond(sim);
      sim.cluster.connectors.onMessage('default', `sensors/${s}`, msg(`v${s}`, sim.cluster.now()));
      sim.cluster.connectors.onMessage('acme', `factory/f${s}/temperature`, msg(`${20 + s}`, sim.cluster.now()));
      if (s === 2) sim.cluster.nodes.get(2)!.online = false;
    }
    return sim.cluster.engine.trace.hash;
  }

  it('gives the same trace hash for the same seed and inputs', async () => {
    const a = await run(7);
    expect(await run(7)).toBe(a);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });
});
