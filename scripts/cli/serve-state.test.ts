import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { MQSIM_BIN as BIN, startServe, stopAll } from './testing/serve-process.ts';
import { encodeState } from '../../sim/io/state/state-file.ts';
import { loadState } from '../../sim/io/state/state-load.ts';

/**
 * `mqsim serve --state FILE` through the real CLI: acknowledged writes of every kind survive a
 * kill -TERM, and a kill -9 right after their answers, and a restart with the same file; a torn last
 * record is dropped; a corrupt, foreign or newer file is refused with exit 2 and left byte for byte as
 * it was; a format-1 file (older mqsim) resumes and becomes a journal.
 */

const dir = mkdtempSync(join(tmpdir(), 'mqsim-state-'));
afterAll(() => {
  stopAll();
  rmSync(dir, { recursive: true, force: true });
});

const serve = startServe;

/** Runs `mqsim serve` expecting it to refuse to start; returns exit code and stderr. */
function refused(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((r) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      r({ code, stderr: err });
    }),
  );
}

async function post(url: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}
async function get(url: string, path: string): Promise<any> {
  return (await fetch(url + path)).json();
}

/** Every write kind the admin API acknowledges, plus a control-interface one; each must answer code 0. */
const WRITES: [string, unknown][] = [
  ['/api/cluster/tenant/create', { tenant_name: 'acme-state', desc: 'kept' }],
  ['/api/cluster/user/create', { tenant: 'acme-state', username: 'bob', password: 'Secret-123', is_superuser: false }],
  [
    '/api/cluster/acl/create',
    {
      tenant: 'acme-state',
      name: 'deny-bob',
      desc: '',
      resource_type: 'User',
      resource_name: 'bob',
      topic: 'secret/#',
      ip: '',
      action: 'All',
      permission: 'Deny',
    },
  ],
  [
    '/api/cluster/blacklist/create',
    { tenant: 'acme-state', name: 'ban-evil', blacklist_type: 'ClientId', resource_name: 'evil', end_time: 4102444800, desc: '' },
  ],
  [
    '/api/cluster/schema/create',
    { tenant: 'acme-state', schema_name: 'reading', schema_type: 'json', schema: '{"type":"object"}', desc: '' },
  ],
  ['/api/cluster/schema-bind/create', { tenant: 'acme-state', schema_name: 'reading', resource_name: 'sensors/t1' }],
  [
    '/api/cluster/topic-rewrite/create',
    { tenant: 'acme-state', name: 'rw', action: 'All', source_topic: 'old/#', dest_topic: 'new/$1', regex: '^old/(.*)$' },
  ],
  [
    '/api/mqtt/auto-subscribe/create',
    {
      tenant: 'acme-state',
      name: 'auto',
      topic: 'inbox/${clientid}',
      qos: 1,
      no_local: false,
      retain_as_published: false,
      retained_handling: 0,
    },
  ],
  [
    '/api/cluster/connector/create',
    {
      tenant: 'acme-state',
      connector_name: 'to-file',
      connector_type: 'file',
      config: '{"local_file_path":"/tmp/mqsim-state-test.log"}',
      topic_name: 'sensors/#',
      failure_strategy: { strategy: 'discard' },
    },
  ],
  ['/api/cluster/config/set', { config_type: 'ClusterLimit', config: JSON.stringify({ max_admin_http_uri_rate: 777 }) }],
  ['/api/cluster/topic/create', { tenant: 'acme-state', topic_name: 'sensors/t1', storage_type: 'EngineMemory' }],
  ['/api/mqtt/message/send', { tenant: 'acme-state', topic: 'sensors/t1', payload: '{"t":21.5}' }],
  ['/api/mqtt/message/send', { tenant: 'acme-state', topic: 'sensors/t1', payload: '{"t":22.0}' }],
  ['/_sim/mq9/mailbox/create', { name: 'inbox.kept', ttl: 3600 }],
];

/** What must come back: the admin-written resources, read through the API. */
async function observe(url: string): Promise<Record<string, unknown>> {
  const names = (r: any, key: string) => (r.data?.data ?? []).map((x: any) => x[key]).sort();
  const t = 'tenant=acme-state';
  const connectors = await get(url, `/api/cluster/connector/list?${t}`);
  return {
    tenant: (await get(url, '/api/cluster/tenant/list?tenant_name=acme-state')).data,
    users: names(await get(url, `/api/cluster/user/list?${t}`), 'username'),
    acl: (await get(url, `/api/cluster/acl/list?${t}`)).data,
    blacklist: (await get(url, `/api/cluster/blacklist/list?${t}`)).data,
    schemas: (await get(url, `/api/cluster/schema/list?${t}`)).data,
    bindings: (await get(url, `/api/cluster/schema-bind/list?${t}`)).data,
    rewrite: (await get(url, `/api/cluster/topic-rewrite/list?${t}`)).data,
    autoSubscribe: (await get(url, `/api/mqtt/auto-subscribe/list?${t}`)).data,
    connectors: (connectors.data?.data ?? []).map((c: any) => [c.connector_name, c.connector_type, c.config, c.topic_name]),
    config: (await get(url, '/api/cluster/config/get')).data?.cluster_limit?.max_admin_http_uri_rate,
    topics: names(await get(url, `/api/cluster/topic/list?${t}`), 'topic_name'),
    records: (await post(url, '/api/mqtt/message/read', { tenant: 'acme-state', topic: 'sensors/t1', offset: 0 })).data,
    mailboxes: names(await get(url, '/api/mq9/mail/list?limit=1000'), 'mail_address').filter((m: string) => m === 'inbox.kept'),
  };
}

describe('mqsim serve --state', () => {
  it('acknowledged writes survive kill -TERM and a restart with the same file', async () => {
    const file = join(dir, 'cluster.state');
    const first = await serve(['--nodes', '3', '--workload', 'demo', '--control', '--seed', '7', '--state', file]);
    for (const [path, body] of WRITES) {
      const answer = await post(first.url, path, body);
      expect(answer.code, `${path}: ${JSON.stringify(answer)}`).toBe(0);
    }
    const before = await observe(first.url);
    expect(before.users).toEqual(['bob']);
    expect(before.topics).toEqual(['sensors/t1']);
    expect(before.mailboxes).toEqual(['inbox.kept']);
    expect(JSON.stringify(before.records)).toContain('21.5');
    expect(before.config).toBe(777);
    for (const key of ['tenant', 'acl', 'blacklist', 'schemas', 'bindings', 'rewrite', 'autoSubscribe'] as const) {
      expect((before[key] as { total_count?: number }).total_count, key).toBe(1);
    }
    expect(before.connectors).toHaveLength(1);
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    expect(first.stderr()).toMatch(/state saved to .*\(\d+ write\(s\)\)/);

    // Restart with the same file and no other options: the recorded ones (seed 7, 3 nodes, demo) apply.
    const second = await serve(['--control', '--state', file]);
    try {
      expect(second.stderr()).toMatch(/resumed \d+ write\(s\)/);
      expect(await observe(second.url)).toEqual(before);
      // The resumed cluster keeps going: a new write is journaled after the replayed ones.
      expect((await post(second.url, '/api/cluster/tenant/create', { tenant_name: 'after-restart' })).code).toBe(0);
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exit).toBe(0);
    }
    const third = await serve(['--state', file]);
    try {
      expect((await get(third.url, '/api/cluster/tenant/list?tenant_name=after-restart')).data.total_count).toBe(1);
      expect((await observe(third.url)).users).toEqual(['bob']);
    } finally {
      third.child.kill('SIGINT');
      expect(await third.exit).toBe(0);
    }

    // An option that contradicts the file is a usage error, and the file stays as it was.
    const bytes = readFileSync(file);
    const clash = await refused(['--seed', '8', '--state', file]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/--seed "8" differs from "7"/);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  }, 120_000);

  it('every acknowledged write survives a kill -9 sent right after the last answer', async () => {
    const file = join(dir, 'killed.state');
    const s = await serve(['--workload', 'none', '--nodes', '3', '--control', '--state', file]);
    // Concurrent clients on every node (their records share fsyncs), then a control-interface write.
    const names = Array.from({ length: 60 }, (_, i) => `survivor-${i}`);
    const nodes = [...s.stderr().matchAll(/node \d: (http:\/\/\S+)/g)].map((m) => m[1]);
    expect(nodes).toHaveLength(3);
    const answers = await Promise.all(names.map((n, i) => post(nodes[i % 3], '/api/cluster/tenant/create', { tenant_name: n })));
    expect(answers.every((a) => a.code === 0)).toBe(true);
    expect((await post(s.url, '/_sim/mq9/mailbox/create', { name: 'inbox.killed', ttl: 3600 })).code).toBe(0);
    s.child.kill('SIGKILL');
    await s.exit;
    const again = await serve(['--control', '--state', file]);
    try {
      expect(again.stderr()).toMatch(/resumed 61 write\(s\)/);
      const listed = await get(again.url, '/api/cluster/tenant/list?limit=1000');
      const kept = (listed.data.data as { tenant_name: string }[]).map((t) => t.tenant_name).filter((n) => n.startsWith('survivor-'));
      expect(kept.sort()).toEqual([...names].sort());
      const mail = await get(again.url, '/api/mq9/mail/list?limit=1000');
      expect((mail.data.data as { mail_address: string }[]).map((m) => m.mail_address)).toContain('inbox.killed');
    } finally {
      again.child.kill('SIGTERM');
      await again.exit;
    }
  }, 60_000);

  it('a missing file is created at start, private to its owner, as a journal', async () => {
    const file = join(dir, 'new.state');
    const s = await serve(['--workload', 'none', '--nodes', '1', '--state', file]);
    try {
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toMatch(/^MQSIM-SERVE-STATE 2\n[0-9a-f]{8} [0-9a-f]{8} \{"run":/);
    } finally {
      s.child.kill('SIGTERM');
      await s.exit;
    }
  }, 30_000);

  it('drops a torn last record (a write never acknowledged) and resumes the rest', async () => {
    const file = join(dir, 'torn.state');
    const s = await serve(['--workload', 'none', '--nodes', '1', '--state', file]);
    for (const n of ['kept-1', 'kept-2']) expect((await post(s.url, '/api/cluster/tenant/create', { tenant_name: n })).code).toBe(0);
    s.child.kill('SIGKILL');
    await s.exit;
    const whole = readFileSync(file);
    writeFileSync(file, whole.subarray(0, whole.length - 9));
    const again = await serve(['--state', file]);
    try {
      expect(again.stderr()).toMatch(/dropped a torn last record \(\d+ bytes/);
      expect(again.stderr()).toMatch(/resumed 1 write\(s\)/);
      expect((await get(again.url, '/api/cluster/tenant/list?tenant_name=kept-1')).data.total_count).toBe(1);
      expect((await get(again.url, '/api/cluster/tenant/list?tenant_name=kept-2')).data.total_count).toBe(0);
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exit).toBe(0);
    }
    expect(loadState(file)!.torn).toBeUndefined();
  }, 30_000);

  it('resumes a format-1 file (written by an older mqsim) and continues it as a journal', async () => {
    const file = join(dir, 'format1.state');
    const s = await serve(['--workload', 'none', '--nodes', '1', '--state', file]);
    expect((await post(s.url, '/api/cluster/tenant/create', { tenant_name: 'from-format-1' })).code).toBe(0);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
    writeFileSync(file, encodeState(loadState(file)!.state));
    expect(readFileSync(file, 'utf8')).toMatch(/^MQSIM-SERVE-STATE 1 sha256=/);
    const again = await serve(['--state', file]);
    try {
      expect(again.stderr()).toMatch(/converted .* from state format 1/);
      expect(again.stderr()).toMatch(/resumed 1 write\(s\)/);
      expect((await get(again.url, '/api/cluster/tenant/list?tenant_name=from-format-1')).data.total_count).toBe(1);
      expect((await post(again.url, '/api/cluster/tenant/create', { tenant_name: 'after-conversion' })).code).toBe(0);
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exit).toBe(0);
    }
    expect(loadState(file)).toMatchObject({ format: 2, state: { writes: [{}, {}] } });
  }, 30_000);

  describe('refuses a file it cannot trust, with exit 2, and leaves it byte-identical', () => {
    const good = (): string => {
      // A real state file with two writes, made by a short run.
      const path = join(dir, 'good.state');
      return readFileSync(path, 'utf8');
    };

    it('makes a good file first', async () => {
      const file = join(dir, 'good.state');
      const s = await serve(['--workload', 'none', '--nodes', '1', '--state', file]);
      expect((await post(s.url, '/api/cluster/tenant/create', { tenant_name: 'x' })).code).toBe(0);
      expect((await post(s.url, '/api/cluster/tenant/create', { tenant_name: 'y' })).code).toBe(0);
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(0);
      expect(good()).toContain('tenant/create');
    }, 30_000);

    const cases: [string, (text: string) => string | Buffer, RegExp][] = [
      [
        'corrupt (one byte of a record before the last changed)',
        (t) => t.replace('tenant/create', 'tenant/crEate'),
        /is damaged: record 2 .* good records follow it/,
      ],
      ['header only', (t) => t.slice(0, t.indexOf('\n') + 1), /ends after its header/],
      [
        'foreign JSON (package.json)',
        () => readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url))),
        /not an mqsim serve state file .*some other JSON/,
      ],
      ["another program's binary file", () => Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0]), /not an mqsim serve state file/],
      [
        'a newer format',
        (t) => t.replace(/^MQSIM-SERVE-STATE 2\n/, 'MQSIM-SERVE-STATE 3\n'),
        /newer mqsim \(state format 3; this mqsim reads format 2\)/,
      ],
      [
        'a replay that answers differently (edited with a fixed checksum)',
        (t) => rechecksum(t.replace(/"status":200/, '"status":201')),
        /answered HTTP 200 .* instead of what it answered when recorded \(HTTP 201\)/,
      ],
    ];
    for (const [name, make, message] of cases) {
      it(
        name,
        async () => {
          const file = join(dir, `bad-${name.replace(/\W+/g, '-')}.state`);
          const content = make(good());
          writeFileSync(file, content);
          const before = readFileSync(file);
          const r = await refused(['--state', file]);
          expect(r.code, r.stderr).toBe(2);
          expect(r.stderr).toMatch(message);
          expect(readFileSync(file).equals(before)).toBe(true);
          expect(existsSync(`${file}.tmp-${process.pid}`)).toBe(false);
        },
        30_000,
      );
    }
  });
});

/** Recomputes every record's length and checksum after an edit (to reach the replay check). */
function rechecksum(text: string): string {
  const [header, ...records] = text.split('\n');
  const fixed = records.map((line) => {
    if (line === '') return line;
    const payload = Buffer.from(line.slice(18));
    const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');
    return `${hex(payload.length)} ${hex(crc32(payload))} ${payload.toString()}`;
  });
  return [header, ...fixed].join('\n');
}
