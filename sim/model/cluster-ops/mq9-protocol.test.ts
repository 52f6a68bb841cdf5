import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { answerMq9Request, MQ9_SUBJECTS } from './mq9-protocol.ts';

describe('mq9 protocol requests', () => {
  it('creates mailboxes with the real server reply and error texts', () => {
    const sim = new InProcessSim({ workload: 'none', seed: 3 });
    const ask = (p: string): any => answerMq9Request(sim.cluster, MQ9_SUBJECTS.mailboxCreate, p);
    expect(ask('{"name":"inbox.one","ttl":30,"desc":"d"}')).toEqual({ error: '', mail_address: 'inbox.one' });
    const fresh = ask('');
    expect(fresh.error).toBe('');
    expect(fresh.mail_address).toMatch(/^[a-z0-9]+$/);
    expect(ask('{"name":"inbox.one"}')).toEqual({ error: 'mailbox inbox.one already exists', mail_address: '' });
    expect(ask('{"name":""}')).toEqual({ error: 'prefix must not be empty', mail_address: '' });
    expect(ask('{"name":"A_b"}')).toEqual({ error: 'name may only contain lowercase letters, digits, and dots', mail_address: '' });
    expect(ask('{"name":".ab"}')).toEqual({ error: 'prefix must start and end with a lowercase letter or digit', mail_address: '' });
    expect(ask('{nope').error).toMatch(/^invalid MAILBOX.CREATE payload: /);
    expect(ask('{"ttl":-1}').error).toBe('invalid MAILBOX.CREATE payload: invalid value: integer `-1`, expected u64');
    expect(ask('{"name":5}').error).toBe('invalid MAILBOX.CREATE payload: invalid type: integer `5`, expected a string');
    const box = sim.cluster.mq9.listMailboxes().find((m) => m.mail_address === 'inbox.one')!;
    expect(box).toMatchObject({ tenant: 'default', ttl: 30, desc: 'd' });
  });

  it('registers (card or {name, payload}), discovers and unregisters agents', () => {
    const sim = new InProcessSim({ workload: 'none', seed: 3 });
    const ask = (s: string, p: string): any => answerMq9Request(sim.cluster, s, p);
    expect(ask(MQ9_SUBJECTS.agentRegister, '')).toEqual({ error: 'payload must not be empty' });
    expect(ask(MQ9_SUBJECTS.agentRegister, JSON.stringify({ name: 'planner', description: 'plans' }))).toEqual({ error: '' });
    expect(ask(MQ9_SUBJECTS.agentRegister, JSON.stringify({ name: 'raw', payload: 'info text' }))).toEqual({ error: '' });
    expect(ask(MQ9_SUBJECTS.agentRegister, JSON.stringify({ name: 'empty', payload: '' }))).toEqual({
      error: 'agent_info must not be empty',
    });
    expect(ask(MQ9_SUBJECTS.agentRegister, '{"x":1}').error).toMatch(/^invalid AGENT.REGISTER payload/);
    expect(ask(MQ9_SUBJECTS.agentDiscover, '')).toEqual({
      error: '',
      agents: [
        { name: 'planner', agent_info: JSON.stringify({ name: 'planner', description: 'plans' }) },
        { name: 'raw', agent_info: 'info text' },
      ],
    });
    const names = (p: string) => ask(MQ9_SUBJECTS.agentDiscover, p).agents.map((a: any) => a.name);
    expect(names('{"text":"PLAN"}')).toEqual(['planner']);
    expect(names('{"semantic":"INFO"}')).toEqual(['raw']);
    // Paging applies to a search; the plain list is the whole registry, as the real one.
    expect(names('{"text":"a","limit":1,"page":2}')).toEqual(['raw']);
    expect(names('{"limit":1,"page":2}')).toEqual(['planner', 'raw']);
    expect(ask(MQ9_SUBJECTS.agentDiscover, '{"limit":"x"}')).toEqual({
      error: 'invalid AGENT.DISCOVER payload: invalid type: string "x", expected u32',
      agents: [],
    });
    expect(ask(MQ9_SUBJECTS.agentUnregister, '{"name":"raw"}')).toEqual({ error: '' });
    expect(ask(MQ9_SUBJECTS.agentUnregister, '{"name":"raw"}')).toEqual({ error: '' });
    expect(ask(MQ9_SUBJECTS.agentUnregister, '{"name":""}')).toEqual({ error: 'agent name must not be empty' });
    expect(ask(MQ9_SUBJECTS.agentUnregister, '').error).toBe(
      'invalid AGENT.UNREGISTER payload: EOF while parsing a value at line 1 column 0',
    );
    expect(sim.cluster.mq9.listAgents().map((a) => a.name)).toEqual(['planner']);
    expect(answerMq9Request(sim.cluster, '$mq9.AI.NOPE', '{}')).toBeUndefined();
    // A subject with no mailbox (NATS itself refuses one ending in a dot) names the empty address.
    expect(answerMq9Request(sim.cluster, '$mq9.AI.MSG.SEND.', 'x')).toEqual({ error: 'mailbox  does not exist', msg_id: 0 });
  });

  it('answers that the component is not running while it is switched off', () => {
    const sim = new InProcessSim({ workload: 'none', seed: 3 });
    sim.cluster.mq9.setRunning(false);
    for (const s of Object.values(MQ9_SUBJECTS)) {
      expect((answerMq9Request(sim.cluster, s, '{"name":"a"}') as any).error).toMatch(/^mq9 component is not running/);
    }
  });
});
