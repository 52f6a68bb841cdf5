import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';

describe('auto-subscribe rules', () => {
  it('subscribe every connecting client of the tenant, with placeholders replaced, and list with text labels', async () => {
    const sim = new InProcessSim();
    const created = await sim.post('/api/mqtt/auto-subscribe/create', {
      tenant: 'default',
      name: 'cmds',
      topic: 'cmd/${clientid}/${username}',
      qos: 2,
      no_local: false,
      retain_as_published: true,
      retained_handling: 1,
    });
    expect(created.json.code).toBe(0);
    const list = await sim.get('/api/mqtt/auto-subscribe/list?name=cmd');
    expect(list.json.data.data[0]).toMatchObject({ qos: 'ExactlyOnce', retained_handling: 'OnNewSubscribe', retain_as_published: true });

    expect(sim.cluster.mqtt.connect({ tenant: 'default', clientId: 'dev-1', username: 'alice', protocol: 5 } as any).ok).toBe(true);
    const subs = await sim.get('/api/mqtt/subscribe/list?client_id=dev-1');
    expect(subs.json.data.data.map((s: any) => s.path)).toEqual(['cmd/dev-1/alice']);

    // A message sent through the API reaches the auto-subscribed client.
    const sent = await sim.post('/api/mqtt/message/send', { tenant: 'default', topic: 'cmd/dev-1/alice', payload: 'reboot' });
    expect(sent.json.code).toBe(0);
    expect(sim.cluster.mqtt.subscribersOf('default', 'cmd/dev-1/alice')).toEqual([{ client_id: 'dev-1', path: 'cmd/dev-1/alice' }]);

    expect((await sim.post('/api/mqtt/auto-subscribe/delete', { tenant: 'default', name: 'cmds' })).json.code).toBe(0);
    expect((await sim.post('/api/mqtt/auto-subscribe/delete', { tenant: 'default', name: 'cmds' })).json.code).toBe(1);
  });

  it('applies topic rewrite rules to publishes', async () => {
    const sim = new InProcessSim();
    await sim.post('/api/cluster/topic-rewrite/create', {
      tenant: 'default',
      name: 'r',
      action: 'Publish',
      source_topic: 'old/+',
      dest_topic: 'new/$1',
      regex: '^old/(.+)$',
    });
    await sim.post('/api/mqtt/message/send', { tenant: 'default', topic: 'old/x', payload: 'p' });
    const topics = (await sim.get('/api/cluster/topic/list?tenant=default')).json.data.data.map((t: any) => t.topic_name);
    expect(topics).toContain('new/x');
    expect(topics).not.toContain('old/x');
  });
});
