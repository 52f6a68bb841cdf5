import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHAOS_FAULT_KINDS } from '../../sim/runs/chaos/chaos-plan.ts';
import { runChaosCommand, type ChaosCommandOptions } from './chaos-command.ts';
import { runReplayCommand } from './replay-command.ts';
import { UsageError } from './usage-error.ts';

const BIN = fileURLToPath(new URL('../../bin/mqsim.js', import.meta.url));

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
      readFile: (p: string) => {
        const t = files.get(p);
        if (t === undefined) throw new Error('ENOENT');
        return t;
      },
    },
  };
}

const base: ChaosCommandOptions = {
  seed: '2',
  steps: 300,
  nodes: 5,
  faults: [...CHAOS_FAULT_KINDS],
  shrink: true,
  shrinkRuns: 60,
  json: true,
};

describe('mqsim chaos / replay', () => {
  it('chaos --json --out prints one line, and replay --json prints the same line', async () => {
    const m = memoryIo();
    expect(await runChaosCommand({ ...base, faults: ['crash', 'partition', 'loss', 'connector', 'flapping'], out: 'run.json' }, m.io)).toBe(
      0,
    );
    expect(m.out).toHaveLength(1);
    const line = m.out[0];
    expect(JSON.parse(line).replay).toBe('mqsim replay run.json');
    m.out.length = 0;
    expect(await runReplayCommand('run.json', { json: true }, m.io)).toBe(0);
    expect(m.out).toEqual([line]);
  });

  it('on a violation exits 1, shrinks, writes the minimal replay file and prints its command; the file reproduces it', async () => {
    const m = memoryIo();
    expect(
      await runChaosCommand(
        { ...base, seed: '1', steps: 1500, faults: ['crash', 'partition', 'loss'], bug: 'hwPastIsrMember', shrinkOut: 'min.json' },
        m.io,
      ),
    ).toBe(1);
    expect(JSON.parse(m.out[0]).violations.length).toBeGreaterThan(0);
    expect(m.err.join('')).toMatch(/shrunk \d+ steps to \d+ .*replay it: mqsim replay min\.json/);
    const saved = JSON.parse(m.files.get('min.json')!);
    expect(saved.plan.length).toBeLessThan(100);
    m.out.length = 0;
    expect(await runReplayCommand('min.json', { json: true }, m.io)).toBe(1);
    const replayed = JSON.parse(m.out[0]);
    expect(replayed.trace_hash).toBe(saved.expect.trace_hash);
    expect(replayed.violations.map((v: { name: string }) => v.name)).toEqual(saved.expect.violations);
  });

  it('replay --until --dump prints the cluster state at that event; bad use is a usage error', async () => {
    const m = memoryIo();
    await runChaosCommand({ ...base, steps: 100, out: 'r.json' }, m.io);
    m.out.length = 0;
    expect(await runReplayCommand('r.json', { until: 200, dump: true, json: true }, m.io)).toBe(0);
    const dump = JSON.parse(m.out[0]);
    expect(dump.event).toBe(200);
    expect(dump.groups[0]).toEqual(expect.objectContaining({ name: expect.any(String), term: expect.any(Number) }));
    expect(dump.isr).toEqual(expect.objectContaining({ segments: expect.any(Number), under_replicated: expect.any(Number) }));
    await expect(runReplayCommand('r.json', { dump: true }, m.io)).rejects.toBeInstanceOf(UsageError);
    await expect(runReplayCommand('missing.json', {}, m.io)).rejects.toBeInstanceOf(UsageError);
  });

  it('replays a saved finding whose bug was fixed: no violation now, and the diverging trace hash is reported (exit 1)', async () => {
    const file = fileURLToPath(new URL('../../fixtures/scenarios/findings/leave-rejoin-loses-acknowledged-write.json', import.meta.url));
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    const out: string[] = [];
    const err: string[] = [];
    const code = await runReplayCommand(
      file,
      { json: true },
      { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), readFile: (p) => readFileSync(p, 'utf8') },
    );
    expect(code).toBe(1);
    expect(err.join('')).toContain(`replay DIVERGED: saved trace ${saved.expect.trace_hash}`);
    const line = JSON.parse(out[0]);
    expect(line.violations).toEqual([]);
  });

  it('--check-determinism compares two runs', async () => {
    const m = memoryIo();
    expect(await runChaosCommand({ ...base, steps: 200, checkDeterminism: true }, m.io)).toBe(0);
    expect(JSON.parse(m.out[0]).deterministic).toBe(true);
  });

  it('has --help with examples and exits 2 on usage errors', () => {
    for (const cmd of ['chaos', 'replay']) {
      const help = spawnSync(process.execPath, [BIN, cmd, '--help'], { encoding: 'utf8' });
      expect(help.status, cmd).toBe(0);
      expect(help.stdout).toMatch(/Examples:/);
    }
    const bad = spawnSync(process.execPath, [BIN, 'chaos', '--faults', 'crash,meteor'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown fault kind "meteor"/);
    expect(spawnSync(process.execPath, [BIN, 'replay'], { encoding: 'utf8' }).status).toBe(2);
  });
});
