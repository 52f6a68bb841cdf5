import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import { connectAsync } from 'mqtt';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { serviceMissing, skipOrFail } from '../../../fixtures/testing/required-service.ts';
import { liveHarness, portOpen, type LiveHarness } from './testing/live-test-kit.ts';

/**
 * Live connectors against the real servers of this machine (`.ci/run` starts any that is down).
 * Each block skips, saying why, when its server's port does not answer (fails under CI=true). Outages are simulated with
 * a closed port (127.0.0.1:1): the machine's servers are never stopped (other tests use them).
 */
const down = async (port: number) =>
  (await portOpen(port)) ? undefined : `nothing answers on 127.0.0.1:${port} (run .ci/run to start it)`;
const MISSING = {
  mqtt: serviceMissing('Mosquitto', await down(1883)),
  redis: serviceMissing('Redis', await down(6379)),
  postgres: serviceMissing('PostgreSQL', await down(5432)),
  mysql: serviceMissing('MariaDB', await down(3306)),
  rabbitmq: serviceMissing('RabbitMQ', await down(5672)),
};

const unique = `${process.pid}_${Date.now().toString(36)}`;
const DISCARD_FAST = { strategy: 'discard' };

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const sent = (name: string, n: number) => () => h!.connector(name).stats.sendSuccessTotal === n;
const failedN = (name: string, n: number) => () => h!.connector(name).stats.sendFailTotal === n;

describe.skipIf(MISSING.mqtt)('live mqtt connector (Mosquitto 127.0.0.1:1883)', () => {
  it('bridges to topic_prefix + topic with the configured qos; a closed port fails the batch', async () => {
    const prefix = `mqsimtest/${unique}/`;
    const sub = await connectAsync('mqtt://127.0.0.1:1883', { clientId: `sub_${unique}` });
    const got: { topic: string; payload: string; retain: boolean }[] = [];
    sub.on('message', (topic, payload, packet) => got.push({ topic, payload: payload.toString(), retain: packet.retain }));
    await sub.subscribeAsync(`${prefix}#`, { qos: 1 });
    try {
      h = liveHarness();
      await h.create({
        name: 'br',
        type: 'mqtt',
        config: { server: 'mqtt://127.0.0.1:1883', topic_prefix: prefix, qos: 1, protocol_version: 'v4', client_id_prefix: 'mqsimlive' },
      });
      await h.create({
        name: 'down',
        type: 'mqtt',
        config: { server: 'mqtt://127.0.0.1:1', connect_timeout_secs: 1 },
        failure_strategy: DISCARD_FAST,
      });
      h.publish('live/a', 'm1');
      h.publish('live/b', 'm2');
      expect(await h.until(() => got.length === 2 && h!.connector('down').stats.sendFailTotal === 2)).toBe(true);
      expect(got.map((g) => [g.topic, g.payload])).toEqual([
        [`${prefix}live/a`, 'm1'],
        [`${prefix}live/b`, 'm2'],
      ]);
      expect(h.connector('br').stats.sendSuccessTotal).toBe(2);
    } finally {
      await sub.endAsync();
    }
  });
});

describe.skipIf(MISSING.redis)('live redis connector (127.0.0.1:6379)', () => {
  it('runs command_template per message; cluster mode and a closed port fail through the strategy', async () => {
    const redis = new Redis({ host: '127.0.0.1', port: 6379, db: 0 });
    const key = `mqsim:test:${unique}:live/a`;
    try {
      h = liveHarness();
      await h.create({
        name: 'r',
        type: 'redis',
        config: { server: '127.0.0.1:6379', command_template: `RPUSH mqsim:test:${unique}:\${topic} \${payload}` },
      });
      await h.create({ name: 'cl', type: 'redis', config: { server: '127.0.0.1:6379', mode: 'cluster', command_template: 'SET a b' } });
      await h.create({
        name: 'down',
        type: 'redis',
        config: { server: '127.0.0.1:1', connect_timeout_ms: 300, command_template: 'SET a b' },
      });
      h.publish('live/a', 'hello world');
      h.publish('live/a', '2');
      expect(await h.until(() => sent('r', 2)() && failedN('cl', 2)() && failedN('down', 2)())).toBe(true);
      expect(await redis.lrange(key, 0, -1)).toEqual(['hello world', '2']);
    } finally {
      await redis.del(key);
      redis.disconnect();
    }
  });

  it('says why cluster mode is refused', async () => {
    h = liveHarness();
    await h.create({
      name: 'cl',
      type: 'redis',
      config: { server: '127.0.0.1:6379', mode: 'cluster', command_template: 'SET a b' },
      failure_strategy: { strategy: 'dead_message_queue', retry_total_times: 1, wait_time_ms: 100, topic_name: 'dl' },
    });
    h.publish('live/a', 'x');
    expect(await h.until(failedN('cl', 1))).toBe(true);
    const read = await h.sim.post('/api/mqtt/message/read', { tenant: 'default', topic: 'dl', offset: 0 });
    expect(JSON.parse(read.json.data.messages[0].content).error_message).toBe(
      'redis mode cluster is not supported by live connectors (only single); the message was not delivered',
    );
  });
});

/** pg as postgres, or root when that role does not exist. */
async function pgClient(): Promise<{ client: pg.Client; user: string } | null> {
  for (const user of ['postgres', 'root']) {
    const client = new pg.Client({ host: '127.0.0.1', port: 5432, user, database: 'test', connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      return { client, user };
    } catch {
      await client.end().catch(() => undefined);
    }
  }
  return null;
}

describe.skipIf(MISSING.postgres)('live postgres connector (127.0.0.1:5432, db test)', () => {
  it('batch insert, upsert on conflict, sql_template; a closed port fails', async (ctx) => {
    const conn = await pgClient();
    if (!conn) return skipOrFail(ctx, 'PostgreSQL', 'could not log in to db test as postgres or root (trust auth expected)');
    const { client, user } = conn;
    const [t1, t2, t3] = ['a', 'b', 'c'].map((s) => `mqsim_live_${s}_${unique}`.toLowerCase());
    try {
      await client.query(`CREATE TABLE ${t1} (client_id text, topic text, timestamp bigint, payload text, data jsonb)`);
      await client.query(`CREATE TABLE ${t2} (client_id text, topic text PRIMARY KEY, timestamp bigint, payload text, data text)`);
      await client.query(`CREATE TABLE ${t3} (topic text, payload text, extra text)`);
      const base = { host: '127.0.0.1', port: 5432, database: 'test', username: user, password: 'unused-trust-auth' };
      h = liveHarness();
      await h.create({ name: 'batch', type: 'postgres', config: { ...base, table: t1, enable_batch_insert: true } });
      await h.create({ name: 'upsert', type: 'postgres', config: { ...base, table: t2, enable_upsert: true, conflict_columns: 'topic' } });
      await h.create({
        name: 'tpl',
        type: 'postgres',
        config: {
          ...base,
          table: t3,
          sql_template: `INSERT INTO ${t3} (topic, payload, extra) VALUES ($2, $4, $1 || ':' || $3 || ':' || $5)`,
        },
      });
      await h.create({ name: 'down', type: 'postgres', config: { ...base, port: 1, table: t1, connect_timeout_secs: 1 } });
      h.publish('live/a', 'one');
      h.publish('live/a', 'two');
      h.publish('live/b', 'three');
      expect(await h.until(() => sent('batch', 3)() && sent('upsert', 3)() && sent('tpl', 3)() && failedN('down', 3)())).toBe(true);
      const rows1 = (await client.query(`SELECT client_id, topic, payload, data FROM ${t1} ORDER BY payload`)).rows;
      expect(rows1.map((r) => [r.topic, r.payload])).toEqual([
        ['live/a', 'one'],
        ['live/b', 'three'],
        ['live/a', 'two'],
      ]);
      expect(rows1[0].data).toMatchObject({ topic: 'live/a', payload: 'one' });
      const rows2 = (await client.query(`SELECT topic, payload FROM ${t2} ORDER BY topic`)).rows;
      expect(rows2).toEqual([
        { topic: 'live/a', payload: 'two' },
        { topic: 'live/b', payload: 'three' },
      ]);
      expect((await client.query(`SELECT count(*)::int AS n FROM ${t3}`)).rows[0].n).toBe(3);
    } finally {
      for (const t of [t1, t2, t3]) await client.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
      await client.end();
    }
  });
});

describe.skipIf(MISSING.mysql)('live mysql connector (127.0.0.1:3306, db test)', () => {
  it('batch insert, ON DUPLICATE KEY upsert, sql_template; a closed port fails', async (ctx) => {
    let root;
    try {
      root = await createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '', database: 'test', connectTimeout: 2000 });
    } catch (e) {
      return skipOrFail(ctx, 'MariaDB', `could not log in as root with an empty password to db test (${(e as Error).message})`);
    }
    // The catalogue requires a non-empty password, so the connector logs in as a test user.
    const user = 'mqsim_live';
    const [t1, t2, t3] = ['a', 'b', 'c'].map((s) => `mqsim_live_${s}_${unique}`);
    try {
      await root.query(`CREATE USER IF NOT EXISTS '${user}'@'localhost' IDENTIFIED BY 'mqsim_live'`);
      await root.query(`CREATE USER IF NOT EXISTS '${user}'@'127.0.0.1' IDENTIFIED BY 'mqsim_live'`);
      await root.query(`GRANT ALL ON test.* TO '${user}'@'localhost'`);
      await root.query(`GRANT ALL ON test.* TO '${user}'@'127.0.0.1'`);
      await root.query(`CREATE TABLE ${t1} (record_key VARCHAR(255), payload TEXT, timestamp BIGINT)`);
      await root.query(`CREATE TABLE ${t2} (record_key VARCHAR(255) PRIMARY KEY, payload TEXT, timestamp BIGINT)`);
      await root.query(`CREATE TABLE ${t3} (k VARCHAR(255), p TEXT, note VARCHAR(64))`);
      const base = { host: '127.0.0.1', port: 3306, database: 'test', username: user, password: 'mqsim_live' };
      h = liveHarness();
      await h.create({ name: 'batch', type: 'mysql', config: { ...base, table: t1, enable_batch_insert: true } });
      await h.create({
        name: 'upsert',
        type: 'mysql',
        config: { ...base, table: t2, enable_upsert: true, conflict_columns: 'record_key' },
      });
      await h.create({
        name: 'tpl',
        type: 'mysql',
        config: { ...base, table: t3, sql_template: `INSERT INTO ${t3} (k, p, note) VALUES (?, ?, CONCAT('ts:', ?))` },
      });
      await h.create({ name: 'down', type: 'mysql', config: { ...base, port: 1, table: t1, connect_timeout_secs: 1 } });
      h.publish('live/a', 'one');
      h.publish('live/a', 'two');
      h.publish('live/b', 'three');
      expect(await h.until(() => sent('batch', 3)() && sent('upsert', 3)() && sent('tpl', 3)() && failedN('down', 3)())).toBe(true);
      const [rows1] = await root.query(`SELECT record_key, payload FROM ${t1} ORDER BY payload`);
      expect(rows1).toEqual([
        { record_key: 'live/a', payload: 'one' },
        { record_key: 'live/b', payload: 'three' },
        { record_key: 'live/a', payload: 'two' },
      ]);
      const [rows2] = await root.query(`SELECT record_key, payload FROM ${t2} ORDER BY record_key`);
      expect(rows2).toEqual([
        { record_key: 'live/a', payload: 'two' },
        { record_key: 'live/b', payload: 'three' },
      ]);
      const [rows3] = (await root.query(`SELECT note FROM ${t3}`)) as unknown as [{ note: string }[]];
      expect(rows3).toHaveLength(3);
      expect(rows3[0].note).toMatch(/^ts:\d{13}$/);
    } finally {
      for (const t of [t1, t2, t3]) await root.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
      await root.end();
    }
  });
});

describe.skipIf(MISSING.rabbitmq)('live rabbitmq connector (127.0.0.1:5672 guest/guest)', () => {
  it('publishes with confirms to the asserted exchange; a closed port fails', async () => {
    const exchange = `mqsim.live.${unique}`;
    const conn = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
    const ch = await conn.createChannel();
    try {
      await ch.assertExchange(exchange, 'topic', { durable: true });
      const { queue } = await ch.assertQueue('', { exclusive: true });
      await ch.bindQueue(queue, exchange, '#');
      const got: { key: string; body: string; persistent: boolean }[] = [];
      await ch.consume(
        queue,
        (m) => m && got.push({ key: m.fields.routingKey, body: m.content.toString(), persistent: m.properties.deliveryMode === 2 }),
        { noAck: true },
      );
      h = liveHarness();
      const base = { server: '127.0.0.1', username: 'guest', password: 'guest', exchange };
      await h.create({
        name: 'mq',
        type: 'rabbitmq',
        config: { ...base, delivery_mode: 'Persistent', publisher_confirms: true, confirm_timeout_secs: 5 },
      });
      await h.create({ name: 'fixed', type: 'rabbitmq', config: { ...base, routing_key: 'fixed.key', publisher_confirms: false } });
      await h.create({ name: 'down', type: 'rabbitmq', config: { ...base, port: 1, connection_timeout_secs: 1 } });
      h.publish('live/a', 'p1');
      expect(await h.until(() => got.length === 2 && sent('mq', 1)() && failedN('down', 1)())).toBe(true);
      expect(got).toContainEqual({ key: 'live.a', body: 'p1', persistent: true });
      expect(got).toContainEqual({ key: 'fixed.key', body: 'p1', persistent: false });
    } finally {
      await ch.deleteExchange(exchange).catch(() => undefined);
      await conn.close();
    }
  });
});

describe('live file connector', () => {
  it('appends JSON lines, rotates by size (test hook) and by day; an unwritable path fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mqsim-live-file-'));
    try {
      const line = (p: string) => JSON.stringify({ topic: 'live/a', payload: p, timestamp: 1_000_000_000 }).length + 1; // ten-digit seconds, like the real lines
      h = liveHarness({ fileRotationBytes: line('xx') * 2 });
      await h.create({ name: 'plain', type: 'file', config: { local_file_path: join(dir, 'plain.log') } });
      await h.create({ name: 'size', type: 'file', config: { local_file_path: join(dir, 'size.log'), rotation_strategy: 'size' } });
      await h.create({ name: 'daily', type: 'file', config: { local_file_path: join(dir, 'day.log'), rotation_strategy: 'daily' } });
      await h.create({ name: 'bad', type: 'file', config: { local_file_path: '/dev/null/nope/x.log' } });
      for (const p of ['p1', 'p2', 'p3']) h.publish('live/a', p);
      expect(await h.until(() => sent('plain', 3)() && sent('size', 3)() && sent('daily', 3)() && failedN('bad', 3)())).toBe(true);
      const lines = (await readFile(join(dir, 'plain.log'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.payload)).toEqual(['p1', 'p2', 'p3']);
      expect(lines[0]).toMatchObject({ topic: 'live/a' });
      const files = (await readdir(dir)).sort();
      expect(files).toContain('size.log.1');
      expect((await readFile(join(dir, 'size.log.1'), 'utf8')).trim().split('\n')).toHaveLength(2);
      expect((await readFile(join(dir, 'size.log'), 'utf8')).trim().split('\n')).toHaveLength(1);
      const day = new Date(h.sim.cluster.now()).toISOString().slice(0, 10);
      expect(files).toContain(`day.${day}.log`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
