import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';

describe('mq9', () => {
  it('lists mailboxes with a default page of 20 and expires them after their ttl', async () => {
    const sim = new InProcessSim();
    for (let i = 0; i < 25; i++) sim.cluster.mq9.createMailbox({ name: `box.${i}`, ttl: 60 });
    sim.cluster.mq9.createMailbox({ name: 'forever', ttl: 0 });
    const page = await sim.get('/api/mq9/mail/list');
    expect(page.json.data.data).toHaveLength(20);
    expect(page.json.data.total_count).toBe(26);
    expect(page.json.data.data[0]).toEqual({
      tenant: 'default',
      mail_address: 'box.0',
      desc: '',
      ttl: 60,
      create_time: sim.cluster.options.epochMs,
    });
    sim.advance(59_999);
    expect((await sim.get('/api/mq9/mail/list?mail_address=box.1')).json.data.total_count).toBe(11);
    sim.advance(1);
    expect((await sim.get('/api/mq9/mail/list')).json.data.data.map((m: any) => m.mail_address)).toEqual(['forever']);
  });

  it('refuses invalid mailbox names and keeps the first registration of an agent', () => {
    const sim = new InProcessSim();
    expect(() => sim.cluster.mq9.createMailbox({ name: 'Bad_Name' })).toThrow(/lowercase/);
    expect(() => sim.cluster.mq9.createMailbox({ name: '.dot' })).toThrow(/start and end/);
    sim.cluster.mq9.registerAgent({ name: 'a', agent_info: '{"v":1}' });
    sim.cluster.mq9.registerAgent({ name: 'a', agent_info: '{"v":2}' });
    expect(sim.cluster.mq9.listAgents().map((a) => a.agent_info)).toEqual(['{"v":1}']);
  });

  it('answers an error stating the component is not running when it is off', async () => {
    const sim = new InProcessSim();
    sim.cluster.mq9.setRunning(false);
    for (const path of ['/api/mq9/mail/list', '/api/mq9/agent/list']) {
      const res = await sim.get(path);
      expect(res.json.code).toBe(1);
      expect(res.json.message).toContain('not running');
    }
  });
});
