import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseSeedList } from '../../sim/runs/chaos/seed-sweep.ts';
import { runChaosCommand, type ChaosCommandOptions } from './chaos-command.ts';
import { runSweep } from './chaos-sweep.ts';

const BIN = fileURLToPath(new URL('../../bin/mqsim.js', import.meta.url));
const template = { steps: 150, nodes: 3, faults: ['crash', 'partition'] as ('crash' | 'partition')[], bug: null };

function memoryIo() {
  const files = new Map<string, string>();
  const out: string[] = [];
  const err: string[] = [];
  return {
    files,
    out,
    err,
    io: {
      stdout: (t: string) => void out.push(t),
      stderr: (t: string) => void err.push(t),
      writeFile: (p: string, t: string) => void files.set(p, t),
    },
  };
}

describe('seed lists', () => {
  it('expand ranges and lists, keep order, drop duplicates', () => {
    expect(parseSeedList('1..4')).toEqual(['1', '2', '3', '4']);
    expect(parseSeedList('3,1..2,3,abc')).toEqual(['3', '1', '2', 'abc']);
  });
  it.each([
    ['5..2', 'ends before it starts'],
    ['1..', 'neither a seed nor a range'],
    ['1,,2', 'empty item'],
    ['0..2000000', 'at most'],
  ])('reject %s', (spec, msg) => {
    expect(() => parseSeedList(spec)).toThrow(msg);
  });
});

describe('seed sweeps', () => {
  it('give the same outcomes on worker threads as in this thread, in seed order', async () => {
    const seeds = ['1', '2', '3', '4'];
    const one = await runSweep(template, seeds, 1);
    const two = await runSweep(template, seeds, 2);
    expect(two.outcomes.map((o) => o.seed)).toEqual(seeds);
    expect(two.outcomes.map((o) => [o.trace_hash, o.events, o.passed])).toEqual(
      one.outcomes.map((o) => [o.trace_hash, o.events, o.passed]),
    );
  }, 60_000);

  it('--shard splits the seeds deterministically: the shards together are the whole sweep', async () => {
    const opts: ChaosCommandOptions = {
      seed: '1',
      steps: 100,
      nodes: 3,
      faults: ['crash'],
      shrink: false,
      shrinkRuns: 1,
      json: true,
      seeds: parseSeedList('1..6'),
      workers: 1,
    };
    const lines: any[] = [];
    for (const index of [1, 2]) {
      const m = memoryIo();
      await runChaosCommand({ ...opts, shard: { index, count: 2 } }, m.io);
      lines.push(JSON.parse(m.out[0]));
    }
    expect(lines.map((l) => l.seeds_run)).toEqual([3, 3]);
    const whole = memoryIo();
    await runChaosCommand(opts, whole.io);
    const all = JSON.parse(whole.out[0]);
    expect(lines[0].events + lines[1].events).toBe(all.events);
    expect(lines[0].shard).toBe('1/2');
  }, 60_000);

  it('exit 1 with the failing seeds, their first violation and replay files, when a buggy variant is on', async () => {
    const m = memoryIo();
    const code = await runChaosCommand(
      {
        seed: '1',
        steps: 1500,
        nodes: 5,
        faults: ['crash', 'partition', 'loss'],
        bug: 'grantVoteTwice',
        shrink: false,
        shrinkRuns: 1,
        json: true,
        seeds: ['1', '2', '3'],
        workers: 1,
        outDir: 'out',
      },
      m.io,
    );
    const summary = JSON.parse(m.out[0]);
    expect(code).toBe(1);
    expect(summary.failed.length).toBeGreaterThan(0);
    for (const f of summary.failed) {
      expect(f.first_violation).toMatch(/^raft\./);
      expect(m.files.has(f.replay_file)).toBe(true);
      expect(JSON.parse(m.files.get(f.replay_file)!).format).toBe('mqsim-chaos-replay/1');
    }
    expect(summary.seeds_run).toBe(3);
    expect(Object.keys(summary)).toEqual(
      expect.arrayContaining(['passed', 'events', 'coverage', 'violations_by_invariant', 'events_per_s', 'seeds_per_min']),
    );
  }, 120_000);

  it('run from `npx mqsim` on worker threads (tsx-loaded workers), printing a table and progress on stderr', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mqsim-sweep-'));
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        'chaos',
        '--seeds',
        '1..4',
        '--steps',
        '200',
        '--nodes',
        '3',
        '--faults',
        'crash,partition',
        '--workers',
        '2',
        '--out-dir',
        dir,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.stderr).toContain('chaos sweep: 4/4 seeds');
    expect(r.stdout).toMatch(/seeds run\s+4/);
    expect(r.stdout).toContain('2 worker(s)');
    expect(r.status).toBe(r.stdout.includes('FAILED') ? 1 : 0);
    // One replay file per failing seed, next to the sweep's summary file.
    const replays = readdirSync(dir).filter((f) => f.startsWith('chaos-seed-'));
    expect(replays.length).toBe((r.stdout.match(/FAILED seed/g) ?? []).length);
    if (r.status === 1) expect(readFileSync(join(dir, replays[0]), 'utf8')).toContain('mqsim-chaos-replay/1');
    expect(r.stdout).toContain(`summary    ${join(dir, 'sweep.json')}`);
    expect(JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8'))).toMatchObject({
      format: 'mqsim-chaos-sweep/1',
      seeds: '1..4',
      shard: null,
      summary: { seeds_run: 4 },
    });
  }, 60_000);

  it('is a usage error (exit 2) combined with --out, or with a bad range', () => {
    const a = spawnSync(process.execPath, [BIN, 'chaos', '--seeds', '1..3', '--out', 'x.json'], { encoding: 'utf8', timeout: 30_000 });
    expect(a.status).toBe(2);
    expect(a.stderr).toContain('--out');
    const b = spawnSync(process.execPath, [BIN, 'chaos', '--seeds', '9..1'], { encoding: 'utf8', timeout: 30_000 });
    expect(b.status).toBe(2);
    expect(b.stderr).toContain('ends before it starts');
  });
});
