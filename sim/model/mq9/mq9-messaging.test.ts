import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { answerMq9Request, msgSubject, MQ9_SUBJECTS, type Mq9Headers } from '../cluster-ops/mq9-protocol.ts';

/** mq9 messaging over the protocol subjects (robustmq/mq9 protocol.md; the real nats-broker mq9/*.rs). */

function setUp() {
  const sim = new InProcessSim({ workload: 'none', seed: 3 });
  const ask = (subject: string, payload: unknown = '', headers: Mq9Headers = {}): any =>
    answerMq9Request(sim.cluster, subject, typeof payload === 'string' ? payload : JSON.stringify(payload), headers);
  expect(ask(MQ9_SUBJECTS.mailboxCreate, { name: 'task.queue', ttl: 0 })).toEqual({ error: '', mail_address: 'task.queue' });
  const send = (payload: string, headers: Mq9Headers = {}) => ask(msgSubject('send', 'task.queue'), payload, headers);
  const fetch = (req: unknown) => ask(msgSubject('fetch', 'task.queue'), req);
  const ids = (reply: any) => reply.messages.map((m: any) => m.msg_id);
  return { sim, ask, send, fetch, ids };
}

describe('mq9 MSG commands', () => {
  it('SEND gives ids in order; FETCH serves critical first, FIFO within a priority', () => {
    const { sim, send, fetch } = setUp();
    expect(send('n0')).toEqual({ error: '', msg_id: 0 });
    sim.advance(1_000);
    expect(send('c1', { 'mq9-priority': 'critical' })).toEqual({ error: '', msg_id: 1 });
    expect(send('u2', { 'mq9-priority': 'urgent' }).msg_id).toBe(2);
    expect(send('n3', { 'mq9-priority': 'nonsense' }).msg_id).toBe(3);
    const reply = fetch({ deliver: 'earliest' });
    expect(reply.error).toBe('');
    expect(reply.messages.map((m: any) => [m.msg_id, m.payload, m.priority])).toEqual([
      [1, 'c1', 'critical'],
      [2, 'u2', 'urgent'],
      [0, 'n0', 'normal'],
      [3, 'n3', 'normal'],
    ]);
    const t0 = Math.floor(sim.cluster.options.epochMs / 1000);
    expect(reply.messages[2]).toEqual({ msg_id: 0, payload: 'n0', priority: 'normal', header: null, create_time: t0 });
    expect(reply.messages[0].create_time).toBe(t0 + 1);
    // The header block the message came with is kept and returned as bytes.
    expect(Buffer.from(reply.messages[0].header).toString()).toBe('NATS/1.0\r\nmq9-priority: critical\r\n\r\n');
    expect(fetch({ deliver: 'earliest', config: { num_msgs: 2 } }).messages.map((m: any) => m.msg_id)).toEqual([1, 2]);
  });

  it('a group resumes where its ACK left it; without an ACK it reads the same again; force_deliver resets', () => {
    const { send, fetch, ask, ids } = setUp();
    for (let i = 0; i < 3; i++) send(`m${i}`);
    // No committed position: deliver applies (default latest: nothing yet), and nothing is kept.
    expect(ids(fetch({ group_name: 'w' }))).toEqual([]);
    expect(ids(fetch({ group_name: 'w', deliver: 'earliest' }))).toEqual([0, 1, 2]);
    expect(ids(fetch({ group_name: 'w', deliver: 'earliest' }))).toEqual([0, 1, 2]);
    expect(ask(msgSubject('ack', 'task.queue'), { group_name: 'w', mail_address: 'task.queue', msg_id: 1 })).toEqual({ error: '' });
    // A committed position wins over deliver, unless forced.
    expect(ids(fetch({ group_name: 'w', deliver: 'earliest' }))).toEqual([2]);
    send('m3');
    expect(ids(fetch({ group_name: 'w' }))).toEqual([2, 3]);
    expect(ids(fetch({ group_name: 'w', deliver: 'from_id', from_id: 1, force_deliver: true }))).toEqual([1, 2, 3]);
    expect(ids(fetch({ group_name: 'w' }))).toEqual([1, 2, 3]);
    expect(ids(fetch({ group_name: 'other', deliver: 'earliest' }))).toEqual([0, 1, 2, 3]);
    // Stateless: no group, no position.
    expect(ids(fetch({ deliver: 'from_id', from_id: 2 }))).toEqual([2, 3]);
    expect(ids(fetch({}))).toEqual([]);
  });

  it('from_time starts at the first message at or after it, else at the earliest (the Earliest fallback)', () => {
    const { sim, send, fetch, ids } = setUp();
    const t0 = Math.floor(sim.cluster.options.epochMs / 1000);
    send('a');
    sim.advance(10_000);
    send('b');
    expect(ids(fetch({ deliver: 'from_time', from_time: t0 + 5 }))).toEqual([1]);
    expect(ids(fetch({ deliver: 'from_time', from_time: t0 + 1_000_000 }))).toEqual([0, 1]);
  });

  it('QUERY peeks by key, tags or time without moving positions; key compaction keeps the newest', () => {
    const { sim, send, ask, fetch, ids } = setUp();
    const query = (req: unknown) => ids(ask(msgSubject('query', 'task.queue'), req));
    send('s1', { 'mq9-key': 'status', 'mq9-tags': 'billing, vip' });
    sim.advance(5_000);
    send('o1', { 'mq9-tags': 'orders' });
    send('s2', { 'mq9-key': 'status' });
    expect(query('')).toEqual([1, 2]);
    expect(query({ key: 'status' })).toEqual([2]);
    expect(query({ tags: ['orders', 'vip'] })).toEqual([1]);
    expect(query({ since: Math.floor(sim.cluster.options.epochMs / 1000) + 1 })).toEqual([1, 2]);
    expect(query({ limit: 1 })).toEqual([1]);
    expect(ask(msgSubject('query', 'task.queue'), '{"limit":-1}')).toEqual({
      error: 'invalid query request: invalid value: integer `-1`, expected u64',
      messages: [],
    });
    expect(ids(fetch({ group_name: 'g', deliver: 'earliest' }))).toEqual([1, 2]);
  });

  it('TTL and delay headers act on the virtual clock; DELETE removes one message', () => {
    const { sim, send, fetch, ask, ids } = setUp();
    send('short', { 'mq9-ttl': '10' });
    expect(send('later', { 'mq9-delay': '30' })).toEqual({ error: '', msg_id: -1 });
    expect(ids(fetch({ deliver: 'earliest' }))).toEqual([0]);
    sim.advance(10_000);
    expect(ids(fetch({ deliver: 'earliest' }))).toEqual([]);
    sim.advance(20_000);
    expect(fetch({ deliver: 'earliest' }).messages.map((m: any) => [m.msg_id, m.payload])).toEqual([[1, 'later']]);
    expect(ask(msgSubject('delete', 'task.queue', 1))).toEqual({ error: '', deleted: true });
    expect(ask(msgSubject('delete', 'task.queue', 1))).toEqual({ error: 'message not found', deleted: false });
    expect(ask(msgSubject('delete', 'task.queue', 'x'))).toEqual({ error: 'invalid msg_id: x', deleted: false });
    expect(ids(fetch({ deliver: 'earliest' }))).toEqual([]);
  });

  it('refuses unknown mailboxes and bad payloads with the real texts and complete replies', () => {
    const { ask, fetch } = setUp();
    expect(ask(msgSubject('send', 'no.box'), 'x')).toEqual({ error: 'mailbox no.box does not exist', msg_id: 0 });
    expect(ask(msgSubject('fetch', 'no.box'), '{}')).toEqual({ error: 'mailbox no.box does not exist', messages: [] });
    expect(ask(msgSubject('query', 'no.box'), '')).toEqual({ error: 'mailbox no.box does not exist', messages: [] });
    expect(ask(msgSubject('delete', 'no.box', 0))).toEqual({ error: 'mailbox no.box does not exist', deleted: false });
    expect(ask(msgSubject('ack', 'task.queue'), { group_name: 'g', mail_address: 'no.box', msg_id: 0 })).toEqual({
      error: 'mailbox not found: no.box',
    });
    expect(ask(msgSubject('ack', 'task.queue'), { group_name: 'g', mail_address: 'task.queue' })).toEqual({
      error: 'missing field `msg_id`',
    });
    expect(fetch({ deliver: 'newest' }).error).toBe(
      'unknown variant `newest`, expected one of `earliest`, `latest`, `from_time`, `from_id`',
    );
    expect(fetch('').error).toBe('EOF while parsing a value at line 1 column 0');
    expect(fetch({ config: { num_msgs: 'all' } }).error).toBe('invalid type: string "all", expected u32');
  });

  it('AGENT.REPORT appends a report with its time; the agent need not be registered', () => {
    const { sim, ask } = setUp();
    sim.advance(2_000);
    expect(ask(MQ9_SUBJECTS.agentReport, { name: 'planner', report_info: 'busy' })).toEqual({ error: '' });
    expect(ask(MQ9_SUBJECTS.agentReport, { name: '' })).toEqual({ error: 'agent name must not be empty' });
    expect(ask(MQ9_SUBJECTS.agentReport, '{"report_info":"x"}')).toEqual({ error: 'invalid AGENT.REPORT payload: missing field `name`' });
    expect(sim.cluster.mq9.agentReports()).toEqual([
      { tenant: 'default', name: 'planner', report_info: 'busy', report_time: Math.floor(sim.cluster.options.epochMs / 1000) + 2 },
    ]);
  });

  it('records every change in the trace and nothing for reads; an expired mailbox takes its messages along', () => {
    const { sim, ask, send, fetch } = setUp();
    send('m');
    const kinds = () =>
      sim.cluster.engine.trace
        .tail(1000)
        .filter((e) => e.kind.startsWith('mq9.msg'))
        .map((e) => e.kind);
    expect(kinds()).toEqual(['mq9.msg.send']);
    const length = sim.cluster.engine.trace.length;
    fetch({ deliver: 'earliest' });
    ask(msgSubject('query', 'task.queue'), '');
    expect(sim.cluster.engine.trace.length).toBe(length);

    expect(ask(MQ9_SUBJECTS.mailboxCreate, { name: 'brief', ttl: 5 }).error).toBe('');
    expect(ask(msgSubject('send', 'brief'), 'gone soon').msg_id).toBe(0);
    sim.advance(5_000);
    expect(ask(msgSubject('send', 'brief'), 'x').error).toBe('mailbox brief does not exist');
    expect(ask(MQ9_SUBJECTS.mailboxCreate, { name: 'brief', ttl: 5 }).error).toBe('');
    expect(ask(msgSubject('fetch', 'brief'), { deliver: 'earliest' }).messages).toEqual([]);
    expect(ask(msgSubject('send', 'brief'), 'again').msg_id).toBe(0);
  });
});
