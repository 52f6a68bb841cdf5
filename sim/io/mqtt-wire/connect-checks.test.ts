import type { IConnectPacket } from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../model/cluster/cluster.ts';
import { checkConnect, connackProperties, grantConnect } from './connect-checks.ts';
import { Login } from './login.ts';
import { LOGIN_REFUSAL_CODES, RC, V3_CONNACK } from './reason-codes.ts';

function login(): Login {
  const c = new Cluster({ seed: 1, workload: 'none', secretFreeLogin: false }).start();
  c.users.create({ tenant: 'default', username: 'bob', password: 'pw', is_superuser: false });
  return new Login(c);
}

const bob = { username: 'bob', password: Buffer.from('pw') };
const connect = (fields: Partial<IConnectPacket>): IConnectPacket => ({
  cmd: 'connect',
  protocolId: 'MQTT',
  protocolVersion: 5,
  clientId: 'c1',
  clean: true,
  keepalive: 60,
  ...fields,
});

describe('CONNECT checks', () => {
  it('answer with the first refusal in protocol order: packet, then authentication method, then login', () => {
    const l = login();
    // A malformed packet (Receive Maximum 0) with an authentication method and a wrong password: the packet's refusal.
    const all = connect({
      properties: { receiveMaximum: 0, authenticationMethod: 'SCRAM' },
      username: 'bob',
      password: Buffer.from('nope'),
    });
    expect(checkConnect(all, l, 0)).toMatchObject({ ok: false, codes: LOGIN_REFUSAL_CODES.protocolError });
    // Without the packet's fault: the authentication method's.
    const authAndLogin = connect({ properties: { authenticationMethod: 'SCRAM' }, username: 'bob', password: Buffer.from('nope') });
    expect(checkConnect(authAndLogin, l, 0)).toMatchObject({
      ok: false,
      codes: { v3: V3_CONNACK.notAuthorized, v5: RC.badAuthenticationMethod },
    });
    // Only the login's.
    expect(checkConnect(connect({ username: 'bob', password: Buffer.from('nope') }), l, 0)).toMatchObject({ ok: false });
    expect(checkConnect(connect({ username: 'bob', password: Buffer.from('pw') }), l, 0)).toMatchObject({
      ok: true,
      tenant: 'default',
      username: 'bob',
      request: { clientId: 'c1', keepAlive: 60 },
    });
  });

  it('grant an assigned client id, the node keep-alive maximum (MQTT 5 only) and the capped session expiry, and announce what differs', () => {
    const l = login();
    const checked = checkConnect(connect({ ...bob, clientId: '', keepalive: 900, properties: { sessionExpiryInterval: 7_200 } }), l, 0);
    if (!checked.ok) throw new Error(checked.reason);
    const terms = grantConnect(checked.request, { maxKeepAlive: 600, maxSessionExpiry: 3_600 }, () => 'assigned-1');
    expect(terms).toEqual({ clientId: 'assigned-1', assigned: 'assigned-1', keepAlive: 600, sessionExpiry: 3_600 });
    const limits = { receiveMaximum: 100, maximumPacketSize: 1_000, topicAliasMaximum: 10 };
    expect(connackProperties(limits, checked.request, terms)).toEqual({
      ...limits,
      retainAvailable: true,
      wildcardSubscriptionAvailable: true,
      subscriptionIdentifiersAvailable: true,
      sharedSubscriptionAvailable: true,
      assignedClientIdentifier: 'assigned-1',
      sessionExpiryInterval: 3_600,
      serverKeepAlive: 600,
    });
    const v3 = checkConnect(connect({ ...bob, protocolVersion: 4, keepalive: 900 }), l, 0);
    if (!v3.ok) throw new Error(v3.reason);
    expect(grantConnect(v3.request, { maxKeepAlive: 600, maxSessionExpiry: 3_600 }, () => 'unused')).toMatchObject({
      clientId: 'c1',
      assigned: undefined,
      keepAlive: 900,
    });
  });
});
