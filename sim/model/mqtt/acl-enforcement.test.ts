import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';

async function simWithRules(): Promise<InProcessSim> {
  const sim = new InProcessSim({ workload: 'none', nodes: 1, seed: 11 });
  const rule = (name: string, fields: Record<string, string>) =>
    sim.post('/api/cluster/acl/create', { tenant: 'default', name, desc: '', topic: '', ip: '', ...fields });
  expect(
    (
      await rule('deny-secret-pub', {
        resource_type: 'User',
        resource_name: 'dev',
        topic: 'secret/#',
        action: 'Publish',
        permission: 'Deny',
      })
    ).json.code,
  ).toBe(0);
  sim.advance(20);
  expect(
    (
      await rule('deny-cam-sub', {
        resource_type: 'ClientId',
        resource_name: 'cam-1',
        topic: 'admin/#',
        action: 'Subscribe',
        permission: 'Deny',
      })
    ).json.code,
  ).toBe(0);
  sim.advance(20);
  expect(
    (
      await rule('allow-all', {
        resource_type: 'Ip',
        resource_name: 'lan',
        topic: '#',
        ip: '10.0.0.0/8',
        action: 'All',
        permission: 'Allow',
      })
    ).json.code,
  ).toBe(0);
  await sim.post('/api/cluster/user/create', { tenant: 'default', username: 'root', password: 'p', is_superuser: true });
  return sim;
}

describe('ACL enforcement on publish and subscribe', () => {
  it('refuses a denied publish (counted as a drop) and lets others through', async () => {
    const sim = await simWithRules();
    const mqtt = sim.cluster.mqtt;
    expect(mqtt.connect({ tenant: 'default', clientId: 'd1', username: 'dev', ip: '10.1.1.1' }).ok).toBe(true);
    const droppedBefore = mqtt.counters.totals.dropped;
    const denied = mqtt.publish({ tenant: 'default', clientId: 'd1', topic: 'secret/plans', payload: 'x', qos: 1, retain: false });
    expect(denied).toEqual({ ok: false, reason: expect.stringContaining('denied by ACL'), refusal: 'not-authorized' });
    expect(sim.cluster.topics.get('default', 'secret/plans')).toBeUndefined();
    expect(mqtt.counters.totals.dropped).toBe(droppedBefore + 1);
    expect(mqtt.publish({ tenant: 'default', clientId: 'd1', topic: 'public/news', payload: 'x', qos: 1, retain: false }).ok).toBe(true);
    // The same topic published by the broker/API (no client) is not subject to a client's ACL.
    expect(mqtt.publish({ tenant: 'default', topic: 'secret/plans', payload: 'x', qos: 1, retain: false }).ok).toBe(true);
    expect(
      sim.cluster.engine.trace.tail(50).some((e) => e.kind === 'mqtt.publish.refused' && String((e.detail as any).reason).includes('ACL')),
    ).toBe(true);
  });

  it('refuses a denied subscription, and superusers bypass ACL', async () => {
    const sim = await simWithRules();
    const mqtt = sim.cluster.mqtt;
    expect(mqtt.connect({ tenant: 'default', clientId: 'cam-1', username: 'cam', ip: '10.2.2.2' }).ok).toBe(true);
    expect(mqtt.subscribe({ tenant: 'default', clientId: 'cam-1', path: 'admin/users' })).toEqual({
      ok: false,
      reason: expect.stringContaining('denied by ACL'),
      refusal: 'not-authorized',
    });
    expect(mqtt.subscribe({ tenant: 'default', clientId: 'cam-1', path: '$share/g/admin/#' })).toMatchObject({ ok: false });
    expect(mqtt.subscribe({ tenant: 'default', clientId: 'cam-1', path: 'video/#' })).toMatchObject({ ok: true });
    expect(mqtt.subscribersOf('default', 'admin/users')).toEqual([]);

    expect(mqtt.connect({ tenant: 'default', clientId: 'cam-1-root', username: 'root' }).ok).toBe(true);
    expect(mqtt.connect({ tenant: 'default', clientId: 'd-root', username: 'root' }).ok).toBe(true);
    // A superuser named in a Deny rule's scope still publishes (the rule is on user dev; make one on root).
    await sim.post('/api/cluster/acl/create', {
      tenant: 'default',
      name: 'deny-root',
      desc: '',
      resource_type: 'User',
      resource_name: 'root',
      topic: '#',
      ip: '',
      action: 'All',
      permission: 'Deny',
    });
    expect(mqtt.publish({ tenant: 'default', clientId: 'd-root', topic: 'secret/x', payload: 'x', qos: 0, retain: false }).ok).toBe(true);
    expect(mqtt.subscribe({ tenant: 'default', clientId: 'd-root', path: 'admin/#' }).ok).toBe(true);
  });
});
