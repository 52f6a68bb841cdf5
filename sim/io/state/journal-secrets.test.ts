import { describe, expect, it } from 'vitest';
import { Cluster } from '../../model/cluster/cluster.ts';
import { AdminApp, type ModelWrite } from '../../admin-api/admin-app.ts';
import { journaled, StateFileError, type JournaledWrite } from './state-file.ts';
import { replayWrites } from './state-replay.ts';
import { sealedWrite, sealPassword, unsealForReplay } from './journal-secrets.ts';

const PASSWORD = 'Bob-Secret-4711';

/** A recorded run with users created through the API (a demo, so the seeded generator is busy too). */
async function recordRun(): Promise<{ cluster: Cluster; plain: JournaledWrite[]; sealed: JournaledWrite[] }> {
  const cluster = new Cluster({ seed: 3, nodes: 2, workload: 'demo' }).start();
  const writes: ModelWrite[] = [];
  const sealed: JournaledWrite[] = [];
  const app = new AdminApp(cluster, {
    onModelWrite: (w) => {
      writes.push(w);
      sealed.push(journaled('api', sealedWrite(w, cluster.users)));
    },
  });
  const post = async (url: string, body: unknown): Promise<void> => {
    cluster.engine.advance(1_000);
    const res = await app.handle({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      peer: '127.0.0.1',
      nodeId: 1,
    });
    expect(res.status, res.body).toBe(200);
  };
  await post('/api/cluster/tenant/create', { tenant_name: 'acme-j' });
  await post('/api/cluster/user/create', { tenant: 'acme-j', username: 'bob', password: PASSWORD, is_superuser: false });
  await post('/api/cluster/user/delete', { tenant: 'acme-j', username: 'bob' });
  // The same user again with another password: the hash journaled is each create's own.
  await post('/api/cluster/user/create', { tenant: 'acme-j', username: 'bob', password: 'Second-pw', is_superuser: true });
  await post('/api/cluster/user/create', { tenant: 'default', username: 'eve', password: 'Eve-pw-99', is_superuser: false });
  cluster.engine.advance(5_000);
  return { cluster, plain: writes.map((w) => journaled('api', w)), sealed };
}

function replayInto(writes: JournaledWrite[], until: number, onSealed?: (i: number, body: string) => void): Promise<Cluster> {
  const cluster = new Cluster({ seed: 3, nodes: 2, workload: 'demo' }).start();
  return replayWrites(cluster, new AdminApp(cluster), 'A', writes, until, 'test.state', onSealed).then(() => cluster);
}

const storedHashes = (c: Cluster) => c.users.all().map((u) => [u.tenant, u.username, u.password.salt, u.password.hash]);

describe('MQTT user passwords in the journal', () => {
  it('journals the stored hash in place of the password, and a replay stores the same hash with the same trace', async () => {
    const { cluster, sealed } = await recordRun();
    const text = JSON.stringify(sealed);
    for (const secret of [PASSWORD, 'Second-pw', 'Eve-pw-99']) expect(text).not.toContain(secret);
    const bob = cluster.users.get('acme-j', 'bob')!;
    expect(JSON.parse(sealed[3].body!)).toEqual({
      tenant: 'acme-j',
      username: 'bob',
      password_scrypt: { salt: bob.password.salt, hash: bob.password.hash },
      is_superuser: true,
    });

    const replayed = await replayInto(sealed, cluster.now());
    expect(replayed.engine.trace.hash).toBe(cluster.engine.trace.hash);
    expect(storedHashes(replayed)).toEqual(storedHashes(cluster));
    expect(replayed.users.authenticate('acme-j', 'bob', 'Second-pw')).toBe(true);
    expect(replayed.users.authenticate('default', 'eve', 'Eve-pw-99')).toBe(true);
  });

  it('replays an older journal with passwords in clear to the same state, and hands back each body sealed', async () => {
    const { cluster, plain, sealed } = await recordRun();
    expect(JSON.stringify(plain)).toContain(PASSWORD);
    const handed: [number, string][] = [];
    const replayed = await replayInto(plain, cluster.now(), (i, body) => handed.push([i, body]));
    expect(replayed.engine.trace.hash).toBe(cluster.engine.trace.hash);
    expect(storedHashes(replayed)).toEqual(storedHashes(cluster));
    expect(handed).toEqual([1, 3, 4].map((i) => [i, sealed[i].body]));
  });

  it('refuses a replay whose seeded salt comes out other than recorded, and a withheld password', async () => {
    const { cluster, sealed } = await recordRun();
    const zeros = '00'.repeat(16);
    const forged = sealed.map((w, i) => (i === 1 ? { ...w, body: w.body!.replace(/"salt":"[0-9a-f]+"/, `"salt":"${zeros}"`) } : w));
    expect(forged[1].body).not.toBe(sealed[1].body);
    await expect(replayInto(forged, cluster.now())).rejects.toThrow(
      /write 2 .* answered HTTP 500 .*drew salt [0-9a-f]{8}…, not the recorded 0{8}…/,
    );
    const withheld = sealed.map((w, i) =>
      i === 1 ? { ...w, body: JSON.stringify({ tenant: 'acme-j', username: 'bob', password_withheld: true, is_superuser: false }) } : w,
    );
    await expect(replayInto(withheld, cluster.now())).rejects.toThrow(StateFileError);
    await expect(replayInto(withheld, cluster.now())).rejects.toThrow(/write 2 .* had its password withheld/);
  });

  it('withholds a password that matches no stored hash, and leaves every other body as it is', () => {
    const users = { get: () => undefined };
    expect(JSON.parse(sealPassword('{"tenant":"t","username":"u","password":"p"}', users)!)).toEqual({
      tenant: 't',
      username: 'u',
      password_withheld: true,
    });
    for (const body of [undefined, '', '{"tenant_name":"x"}', 'not json "password"', '{"password":7}', '["password"]'])
      expect(sealPassword(body, users)).toBe(body);
    expect(unsealForReplay('{"tenant_name":"x"}')).toEqual({ kind: 'plain', body: '{"tenant_name":"x"}' });
    expect(unsealForReplay('{"password_scrypt":{"salt":"x","hash":"y"}}').kind).toBe('plain');
  });
});
