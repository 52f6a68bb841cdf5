import { connect as netConnect } from 'node:net';
import { connect, headers as natsHeaders, StringCodec, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceMissing } from '../../../fixtures/testing/required-service.ts';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { startNatsBridge, type NatsBridge } from './nats-bridge.ts';

const NATS_URL = 'nats://127.0.0.1:4222';

/** Is a NATS server listening on 127.0.0.1:4222? (.ci/run starts one; the tests skip or, under CI=true, fail when it is not.) */
const natsUp = await new Promise<boolean>((resolve) => {
  const s = netConnect({ host: '127.0.0.1', port: 4222 });
  s.setTimeout(1_000, () => {
    s.destroy();
    resolve(false);
  });
  s.once('connect', () => {
    s.end();
    resolve(true);
  });
  s.once('error', () => resolve(false));
});
const natsMissing = serviceMissing('NATS', natsUp ? undefined : 'no NATS server on 127.0.0.1:4222 (run .ci/run to start one)');

describe.skipIf(natsMissing)('mq9 over a real NATS server', () => {
  // A unique prefix per run: parallel runs on the same server do not answer each other's requests.
  const prefix = `$mq9test${process.pid}${Math.floor(Math.random() * 1e6)}.AI`;
  const sc = StringCodec();
  let sim: InProcessSim;
  let bridge: NatsBridge;
  let nc: NatsConnection;
  const request = async (cmd: string, payload: unknown, hdrs: Record<string, string> = {}): Promise<any> => {
    const h = natsHeaders();
    for (const [k, v] of Object.entries(hdrs)) h.set(k, v);
    const msg = await nc.request(`${prefix}.${cmd}`, sc.encode(typeof payload === 'string' ? payload : JSON.stringify(payload)), {
      timeout: 3_000,
      ...(Object.keys(hdrs).length ? { headers: h } : {}),
    });
    return JSON.parse(sc.decode(msg.data));
  };

  beforeAll(async () => {
    sim = new InProcessSim({ workload: 'none', seed: 5 });
    bridge = await startNatsBridge(sim.cluster, { url: NATS_URL, subjectPrefix: prefix });
    nc = await connect({ servers: NATS_URL });
  });
  afterAll(async () => {
    await nc?.drain();
    await bridge?.close();
  });

  it('creates a mailbox that the admin API lists, and expires it on virtual time', async () => {
    expect(await request('MAILBOX.CREATE', { name: 'nats.inbox', ttl: 120, desc: 'over nats' })).toEqual({
      error: '',
      mail_address: 'nats.inbox',
    });
    expect(await request('MAILBOX.CREATE', { name: 'nats.inbox' })).toEqual({
      error: 'mailbox nats.inbox already exists',
      mail_address: '',
    });
    expect((await request('MAILBOX.CREATE', { name: 'Bad' })).error).toBe('name may only contain lowercase letters, digits, and dots');
    const list = await sim.get('/api/mq9/mail/list?mail_address=nats.inbox');
    expect(list.json.data.data).toEqual([
      { tenant: 'default', mail_address: 'nats.inbox', desc: 'over nats', ttl: 120, create_time: sim.cluster.now() },
    ]);
    sim.advance(120_000);
    expect((await sim.get('/api/mq9/mail/list')).json.data.total_count).toBe(0);
  });

  it('registers, discovers and unregisters an agent', async () => {
    const card = { name: 'nats-agent', description: 'answers over nats', skills: [{ id: 's', name: 'S' }] };
    expect(await request('AGENT.REGISTER', card)).toEqual({ error: '' });
    expect((await sim.get('/api/mq9/agent/list')).json.data.data.map((a: any) => a.name)).toEqual(['nats-agent']);
    expect(await request('AGENT.DISCOVER', '')).toEqual({ error: '', agents: [{ name: 'nats-agent', agent_info: JSON.stringify(card) }] });
    expect(await request('AGENT.UNREGISTER', { name: 'nats-agent' })).toEqual({ error: '' });
    expect(sim.cluster.mq9.listAgents()).toEqual([]);
  });

  it('sends, fetches by priority, acks, queries and deletes messages; headers travel as NATS headers', async () => {
    expect((await request('MAILBOX.CREATE', { name: 'nats.tasks', ttl: 0 })).error).toBe('');
    expect(await request('MSG.SEND.nats.tasks', 'plain')).toEqual({ error: '', msg_id: 0 });
    expect(await request('MSG.SEND.nats.tasks', 'hurry', { 'mq9-priority': 'critical', 'mq9-key': 'k' })).toEqual({ error: '', msg_id: 1 });
    const fetched = await request('MSG.FETCH.nats.tasks', { group_name: 'g', deliver: 'earliest' });
    expect(fetched.messages.map((m: any) => [m.msg_id, m.payload, m.priority])).toEqual([
      [1, 'hurry', 'critical'],
      [0, 'plain', 'normal'],
    ]);
    expect(Buffer.from(fetched.messages[0].header).toString()).toMatch(/^NATS\/1\.0\r\n.*mq9-priority: critical\r\n/is);
    expect(await request('MSG.ACK.nats.tasks', { group_name: 'g', mail_address: 'nats.tasks', msg_id: 1 })).toEqual({ error: '' });
    expect((await request('MSG.FETCH.nats.tasks', { group_name: 'g' })).messages).toEqual([]);
    expect((await request('MSG.QUERY.nats.tasks', { key: 'k' })).messages.map((m: any) => m.payload)).toEqual(['hurry']);
    expect(await request('MSG.DELETE.nats.tasks.0', '')).toEqual({ error: '', deleted: true });
    expect((await request('MSG.QUERY.nats.tasks', '')).messages.map((m: any) => m.msg_id)).toEqual([1]);
    expect(await request('MSG.SEND.no.such.box', 'x')).toEqual({ error: 'mailbox no.such.box does not exist', msg_id: 0 });
    // A report is often published without a reply subject: applied all the same.
    nc.publish(`${prefix}.AGENT.REPORT`, sc.encode(JSON.stringify({ name: 'nats-agent', report_info: 'idle' })));
    await nc.flush();
    await expect.poll(() => sim.cluster.mq9.agentReports().map((r) => r.report_info)).toEqual(['idle']);
  });

  it('answers "not running" while the component is switched off', async () => {
    sim.cluster.mq9.setRunning(false);
    expect((await request('MAILBOX.CREATE', { name: 'x' })).error).toMatch(/^mq9 component is not running/);
    sim.cluster.mq9.setRunning(true);
    expect((await request('MAILBOX.CREATE', { name: 'x' })).error).toBe('');
  });
});
