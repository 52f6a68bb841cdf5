import { describe, expect, it } from 'vitest';
import type { QueuedMessage } from '../../model/connectors/connector-types.ts';
import { rotatedPath, fileLine } from './file-sink.ts';
import { parseRedisTemplate } from './redis-command.ts';
import { sqlStatements, quoteIdent } from './sql-statements.ts';
import { webhookBody, webhookHeaders } from './webhook-sink.ts';

const m = (payload: string, extra: Partial<QueuedMessage> = {}): QueuedMessage => ({
  topic: 'live/a',
  payload,
  timestamp: 1_700_000_000_123,
  ...extra,
});

describe('sql statements', () => {
  it('inserts one row per message by default (mysql layout record_key, payload, timestamp)', () => {
    const s = sqlStatements('mysql', { table: 'msgs' }, [m('p1', { key: 'k1' }), m('p2')]);
    expect(s).toHaveLength(2);
    expect(s[0].text).toBe('INSERT INTO `msgs` (`record_key`, `payload`, `timestamp`) VALUES (?, ?, ?)');
    expect(s[0].values).toEqual(['k1', 'p1', 1_700_000_000_123]);
    expect(s[1].values[0]).toBe('live/a'); // no key: the topic
  });

  it('batch-inserts with numbered placeholders and upserts on conflict (postgres)', () => {
    const s = sqlStatements(
      'postgres',
      { table: 'public.msgs', enable_batch_insert: true, enable_upsert: true, conflict_columns: 'client_id, topic' },
      [m('a', { key: 'c1' }), m('b')],
    );
    expect(s).toHaveLength(1);
    expect(s[0].text).toBe(
      'INSERT INTO "public"."msgs" ("client_id", "topic", "timestamp", "payload", "data") VALUES ($1, $2, $3, $4, $5), ($6, $7, $8, $9, $10) ON CONFLICT ("client_id", "topic") DO UPDATE SET "timestamp" = EXCLUDED."timestamp", "payload" = EXCLUDED."payload", "data" = EXCLUDED."data"',
    );
    expect(s[0].values.slice(0, 4)).toEqual(['c1', 'live/a', 1_700_000_000_123, 'a']);
    expect(JSON.parse(s[0].values[4] as string)).toEqual({ topic: 'live/a', payload: 'a', timestamp: 1_700_000_000, key: 'c1' });
    expect(s[0].messages).toHaveLength(2);
  });

  it('upserts with ON DUPLICATE KEY UPDATE (mysql) and runs sql_template once per message', () => {
    const up = sqlStatements('mysql', { table: 't', enable_upsert: true, conflict_columns: 'record_key' }, [m('x')]);
    expect(up[0].text).toMatch(/ON DUPLICATE KEY UPDATE `payload` = VALUES\(`payload`\), `timestamp` = VALUES\(`timestamp`\)$/);
    const tpl = sqlStatements(
      'mysql',
      { table: 't', sql_template: 'INSERT INTO x (a, b, c) VALUES (?, ?, ?)', enable_batch_insert: true },
      [m('1'), m('2')],
    );
    expect(tpl.map((s) => s.text)).toEqual(['INSERT INTO x (a, b, c) VALUES (?, ?, ?)', 'INSERT INTO x (a, b, c) VALUES (?, ?, ?)']);
  });

  it('quotes identifiers safely', () => {
    expect(quoteIdent('postgres', 'we"ird')).toBe('"we""ird"');
    expect(quoteIdent('mysql', 'a`b')).toBe('`a``b`');
  });
});

describe('redis command template', () => {
  it('substitutes placeholders per argument, keeping a payload with spaces as one argument', () => {
    const t = parseRedisTemplate('RPUSH mqsim:${topic} ${payload}');
    expect(t.render(m('hello world'))).toEqual(['RPUSH', 'mqsim:live/a', 'hello world']);
    expect(parseRedisTemplate('HSET h:${key} ts ${timestamp}').render(m('p', { key: 'k' }))).toEqual([
      'HSET',
      'h:k',
      'ts',
      '1700000000123',
    ]);
  });

  it('refuses unknown placeholders and a template without a command', () => {
    expect(() => parseRedisTemplate('SET ${nope} 1')).toThrow(/unknown placeholder \$\{nope\}/);
    expect(() => parseRedisTemplate('${topic} x')).toThrow(/command name/);
  });
});

describe('file and webhook shapes', () => {
  it('rotates hourly and daily by the message timestamp, before the extension', () => {
    expect(rotatedPath('/tmp/x/mqtt.log', 'hourly', Date.UTC(2026, 0, 2, 13, 5))).toBe('/tmp/x/mqtt.2026-01-02-13.log');
    expect(rotatedPath('/tmp/x/mqtt.log', 'daily', Date.UTC(2026, 0, 2, 13, 5))).toBe('/tmp/x/mqtt.2026-01-02.log');
    expect(rotatedPath('/tmp/x/mqtt', 'daily', Date.UTC(2026, 0, 2))).toBe('/tmp/x/mqtt.2026-01-02');
    expect(rotatedPath('/tmp/x/mqtt.log', 'size', 0)).toBe('/tmp/x/mqtt.log');
    expect(JSON.parse(fileLine(m('p', { key: 'k' })))).toEqual({ topic: 'live/a', payload: 'p', timestamp: 1_700_000_000, key: 'k' });
  });

  it('sends one object for one message and an array for several; auth header from the config', () => {
    expect(JSON.parse(webhookBody([m('a')]))).toEqual({ payload: 'a', timestamp: 1_700_000_000 });
    expect(JSON.parse(webhookBody([m('a'), m('b', { key: 'k' })]))).toEqual([
      { payload: 'a', timestamp: 1_700_000_000 },
      { payload: 'b', timestamp: 1_700_000_000, key: 'k' },
    ]);
    expect(webhookHeaders({ headers: { 'X-A': '1' }, auth_type: 'basic', username: 'u', password: 'p' })).toEqual({
      'content-type': 'application/json',
      'x-a': '1',
      authorization: 'Basic dTpw',
    });
    expect(webhookHeaders({ auth_type: 'bearer', bearer_token: 't' }).authorization).toBe('Bearer t');
  });
});
