/**
 * Restart cost of `mqsim serve --state FILE`: a restart re-simulates the recorded history (the journal
 * holds writes, not a snapshot), so it takes longer the more writes and the more virtual time the run
 * had. This prints
 *   - the restart time (child process start → ready to answer; and the replay alone, as serve reports
 *     it) of journals of 10k and 100k writes, and the seconds per 1k writes of each: equal figures
 *     mean the replay is linear;
 *   - the restart time of runs that reached 1 h and 6 h of virtual time with few writes, with
 *     --workload none and --workload demo, and the seconds per virtual hour;
 *   - with and without a checkpoint (scripts/cli/checkpoint/): the restart time of runs that reached
 *     1 h and 24 h (--checkpoint-hours), the ratio, the time serve took to build the checkpoint, and
 *     the restart times projected to a week and a year of virtual time from the per-hour rates.
 *
 *   npm run bench:state-restart -- [--writes 100000] [--port 62200] [--dir /tmp]
 *                                  [--parts writes,hours,checkpoint] [--checkpoint-hours 1,24]
 *
 * The journals are real: written by `mqsim serve --state` child processes through the HTTP API
 * (32 concurrent clients: tenant creates, topic creates and message sends; the admin rate limit
 * lifted with config/set ClusterLimit.max_admin_http_uri_rate = 0), and the virtual hours by the
 * control interface's POST /_sim/clock/advance. The 10k journal is the first 10k writes of the
 * larger one (a prefix of a journal is a journal).
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { argNumber, argText } from './bench/script-args.ts';
import { startServe, type ServedProcess } from './cli/testing/serve-process.ts';
import { metaPath, removeCheckpoint } from './cli/checkpoint/checkpoint-files.ts';

const total = argNumber('writes', 100_000, { positive: true });
const small = Math.min(10_000, Math.floor(total / 10));
const port = argNumber('port', 62200, { positive: true });
const dir = mkdtempSync(join(argText('dir', tmpdir()), 'mqsim-bench-restart-'));
const CLIENTS = 32;
const parts = argText('parts', 'writes,hours,checkpoint').split(',');
const checkpointHours = argText('checkpoint-hours', '1,24').split(',').map(Number);

async function stop(s: ServedProcess): Promise<void> {
  s.child.kill('SIGTERM');
  const code = await s.exit;
  if (code !== 0) throw new Error(`mqsim serve exited ${code}: ${s.stderr()}`);
}

async function post(pool: Pool, path: string, body: unknown): Promise<void> {
  const res = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode !== 200 || !text.startsWith('{"code":0')) throw new Error(`${path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
}

/** Write number n of the load: mostly message sends (to 10 topics made first), with tenant and topic creates among them. */
function nthWrite(n: number): [string, unknown] {
  if (n % 10 === 0) return ['/api/cluster/tenant/create', { tenant_name: `restart-${n}` }];
  if (n % 10 === 5)
    return ['/api/cluster/topic/create', { tenant: 'default', topic_name: `restart/extra-${n}`, storage_type: 'EngineMemory' }];
  return ['/api/mqtt/message/send', { tenant: 'default', topic: `restart/${n % 10}`, payload: `{"n":${n}}` }];
}

/** A journal of `count` writes (the config write that lifts the rate limit and 10 topic creates among them), written through the API. */
async function buildWritesJournal(file: string, count: number): Promise<void> {
  const s = await startServe(['--port', String(port), '--workload', 'none', '--nodes', '1', '--no-checkpoint', '--state', file]);
  const pool = new Pool(s.url, { connections: CLIENTS });
  try {
    await post(pool, '/api/cluster/config/set', { config_type: 'ClusterLimit', config: JSON.stringify({ max_admin_http_uri_rate: 0 }) });
    for (let t = 0; t < 10; t++)
      await post(pool, '/api/cluster/topic/create', { tenant: 'default', topic_name: `restart/${t}`, storage_type: 'EngineMemory' });
    let next = 1;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let n = next++; n <= count - 11; n = next++) {
          const [path, body] = nthWrite(n);
          await post(pool, path, body);
          if (n % 20_000 === 0) process.stderr.write(`  ${n} writes journaled (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
        }
      }),
    );
  } finally {
    await pool.close();
    await stop(s);
  }
}

/** The first `writes` writes of a journal (header, run record and the records up to the last of them). */
function prefixOfJournal(from: string, to: string, writes: number): void {
  const lines = readFileSync(from, 'utf8').split('\n');
  let seen = 0;
  let end = 2;
  while (end < lines.length && seen < writes) if (lines[end++].includes(' {"write":')) seen++;
  writeFileSync(to, lines.slice(0, end).join('\n') + '\n', { mode: 0o600 });
}

/** Wall time of a restart with `file` (copied first: a restart appends to it), and the replay time serve reports. */
async function timeRestart(file: string, extra: string[] = []): Promise<{ readySeconds: number; replaySeconds: number; writes: number }> {
  const copy = `${file}.restart`;
  copyFileSync(file, copy);
  const t0 = performance.now();
  const s = await startServe(['--port', String(port), '--state', copy, '--no-checkpoint', ...extra]);
  const readySeconds = (performance.now() - t0) / 1000;
  await stop(s);
  const m = /resumed (\d+) write\(s\) up to .* in ([\d.]+) s/.exec(s.stderr());
  if (!m) throw new Error(`no "resumed" line: ${s.stderr()}`);
  rmSync(copy);
  return { readySeconds, replaySeconds: Number(m[2]), writes: Number(m[1]) };
}

/** Seconds for an empty run to be ready: the process start-up, the same in every restart. */
async function startupSeconds(workload: string): Promise<number> {
  const t0 = performance.now();
  const s = await startServe(['--port', String(port), '--workload', workload, '--nodes', '3']);
  const seconds = (performance.now() - t0) / 1000;
  await stop(s);
  return seconds;
}

/** A run with one write that reached `hours` of virtual time past its start (control interface clock advance). */
async function buildHoursJournal(file: string, workload: string, hours: number): Promise<void> {
  const s = await startServe([
    '--port',
    String(port),
    '--workload',
    workload,
    '--nodes',
    '3',
    '--control',
    '--no-checkpoint',
    '--state',
    file,
  ]);
  const pool = new Pool(s.url, { connections: 1, headersTimeout: 600_000, bodyTimeout: 600_000 });
  try {
    await post(pool, '/api/cluster/tenant/create', { tenant_name: 'hours' });
    if (hours > 0) await post(pool, '/_sim/clock/advance', { ms: hours * 3_600_000 });
  } finally {
    await pool.close();
    await stop(s);
  }
}

async function writesPart(): Promise<void> {
  const big = join(dir, `writes-${total}.state`);
  const little = join(dir, `writes-${small}.state`);
  process.stdout.write(`building a journal of ${total} writes through the API (32 clients)...\n`);
  await buildWritesJournal(big, total);
  prefixOfJournal(big, little, small);
  const base = await startupSeconds('none');
  process.stdout.write(`\nstart-up of an empty run (--workload none, no state): ${base.toFixed(2)} s\n`);
  process.stdout.write('writes     ready s   replay s   replay s per 1k writes\n');
  const rows: number[] = [];
  for (const file of [little, big]) {
    const r = await timeRestart(file);
    rows.push(r.replaySeconds / (r.writes / 1000));
    process.stdout.write(
      `${String(r.writes).padStart(7)} ${r.readySeconds.toFixed(2).padStart(9)} ${r.replaySeconds.toFixed(2).padStart(10)} ${(r.replaySeconds / (r.writes / 1000)).toFixed(3).padStart(12)}\n`,
    );
  }
  process.stdout.write(
    `per-1k cost at ${total} / at ${small}: ${(rows[1] / rows[0]).toFixed(2)} (1.00 = linear; 10x the writes cost ${((rows[1] / rows[0]) * 10).toFixed(1)}x the time)\n`,
  );
}

async function hoursPart(): Promise<void> {
  process.stdout.write('\nvirtual hours (3 nodes, one write, then POST /_sim/clock/advance)\n');
  process.stdout.write('workload  hours   ready s   replay s   replay s per virtual hour (beyond the 0 h run)\n');
  for (const workload of ['none', 'demo']) {
    let base = 0;
    for (const hours of [0, 1, 6]) {
      const file = join(dir, `hours-${workload}-${hours}.state`);
      await buildHoursJournal(file, workload, hours);
      const r = await timeRestart(file);
      if (hours === 0) base = r.replaySeconds;
      const perHour = hours > 0 ? ((r.replaySeconds - base) / hours).toFixed(3) : '-';
      process.stdout.write(
        `${workload.padEnd(8)} ${String(hours).padStart(6)} ${r.readySeconds.toFixed(2).padStart(9)} ${r.replaySeconds.toFixed(2).padStart(10)} ${perHour.padStart(12)}\n`,
      );
    }
  }
  process.stdout.write(
    '(demo: every start, a new one included, first simulates one hour of history before it listens; hours 0 shows that part)\n',
  );
}

/** Asks a serve on `file` for a checkpoint (SIGUSR2) and returns the seconds until it is made. */
async function buildCheckpointOf(file: string): Promise<number> {
  removeCheckpoint(file);
  const s = await startServe(['--port', String(port), '--state', file]);
  const t0 = performance.now();
  s.child.kill('SIGUSR2');
  while (!existsSync(metaPath(file))) {
    if (performance.now() - t0 > 3_600_000) throw new Error('no checkpoint made within an hour');
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - t0) / 1000;
  await stop(s);
  return seconds;
}

/** Wall time of a restart with `file` and its checkpoint; the replay of the tail as serve reports it. */
async function timeCheckpointRestart(file: string): Promise<{ readySeconds: number; tailSeconds: number }> {
  const t0 = performance.now();
  const s = await startServe(['--port', String(port), '--state', file]);
  const readySeconds = (performance.now() - t0) / 1000;
  await stop(s);
  const m = /resumed \d+ write\(s\) up to .* in ([\d.]+) s from the checkpoint/.exec(s.stderr());
  if (!m) throw new Error(`the restart did not use the checkpoint: ${s.stderr()}`);
  return { readySeconds, tailSeconds: Number(m[1]) };
}

async function checkpointPart(): Promise<void> {
  process.stdout.write('\ncheckpoint (3 nodes, --workload none, one write, then POST /_sim/clock/advance)\n');
  process.stdout.write('hours   without: ready s  replay s | build s | with: ready s  tail s | ratio (ready without / with)\n');
  const rows: { hours: number; without: number; replay: number; with: number }[] = [];
  for (const hours of checkpointHours) {
    const file = join(dir, `checkpoint-${hours}.state`);
    await buildHoursJournal(file, 'none', hours);
    const without = await timeRestart(file);
    const build = await buildCheckpointOf(file);
    const restored = await timeCheckpointRestart(file);
    rows.push({ hours, without: without.readySeconds, replay: without.replaySeconds, with: restored.readySeconds });
    process.stdout.write(
      `${String(hours).padStart(5)} ${without.readySeconds.toFixed(2).padStart(16)} ${without.replaySeconds.toFixed(2).padStart(9)} | ${build.toFixed(2).padStart(7)} | ${restored.readySeconds.toFixed(2).padStart(13)} ${restored.tailSeconds.toFixed(2).padStart(7)} | ${(without.readySeconds / restored.readySeconds).toFixed(1).padStart(6)}x\n`,
    );
  }
  if (rows.length < 2) return;
  const [a, b] = [rows[0], rows.at(-1)!];
  const perHour = (b.without - a.without) / (b.hours - a.hours);
  const withCheckpoint = Math.max(...rows.map((r) => r.with)) + perHour; // at most one --checkpoint-every (1 h) of tail to replay
  for (const [name, hours] of [
    ['week', 168],
    ['year', 8760],
  ] as const) {
    const without = a.without + perHour * (hours - a.hours);
    process.stdout.write(
      `projected ${name} (${hours} h): without ${fmt(without)}, with a checkpoint at most ${fmt(withCheckpoint)} (ratio ${(without / withCheckpoint).toFixed(0)}x); a build there re-simulates the history at low priority: about ${fmt(without)}\n`,
    );
  }
  process.stdout.write(`(per virtual hour without a checkpoint: ${perHour.toFixed(2)} s, from the ${a.hours} h and ${b.hours} h runs)\n`);
}

const fmt = (s: number): string => (s < 120 ? `${s.toFixed(1)} s` : s < 7200 ? `${(s / 60).toFixed(1)} min` : `${(s / 3600).toFixed(1)} h`);

try {
  if (parts.includes('writes')) await writesPart();
  if (parts.includes('hours')) await hoursPart();
  if (parts.includes('checkpoint')) await checkpointPart();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
