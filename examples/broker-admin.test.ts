import { afterEach, beforeEach, expect, it } from 'vitest';
import { createCluster, type SimulatedCluster } from 'mqsim';
import { BrokerAdmin } from './broker-admin.ts';

let cluster: SimulatedCluster;

beforeEach(() => {
  // Three nodes, seeded: the same test gives the same cluster every run.
  cluster = createCluster({ nodes: 3, seed: 42, workload: 'none' });
  // Every request this process makes to the origin is answered by the cluster, without a socket.
  cluster.intercept('http://broker:58080');
});

afterEach(() => cluster.close());

it('creates a tenant and lists it', async () => {
  const admin = new BrokerAdmin('http://broker:58080');
  await admin.login('admin', 'admin');
  await admin.createTenant('fleet');
  expect(await admin.tenantNames()).toContain('fleet');
});

it('reports the refusal while the cluster elects a leader, and succeeds once it has one', async () => {
  const admin = new BrokerAdmin('http://broker:58080');
  await admin.login('admin', 'admin');
  cluster.advance(2_000);
  cluster.nodes.crash(cluster.nodes.leader()!);
  await expect(admin.createTenant('during-election')).rejects.toThrow(/no leader/);
  cluster.advance(5_000); // virtual time: the election runs, no waiting
  await admin.createTenant('after-election');
  expect(await admin.tenantNames()).toEqual(['after-election', 'default']);
});
