import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/mqsim.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../fixtures/scenarios/isr-shrinks-to-one-then-leader-lost.json', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'scenario', ...args], { encoding: 'utf8', timeout: 60_000 });

describe('mqsim scenario', () => {
  it('prints PASS per check and exits 0; --json gives one line with the trace hash, the same on every run', () => {
    const text = run(FIXTURE);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/PASS eventually\[0\] leader-per-group/);
    expect(text.stdout.trim().split('\n').at(-1)).toBe('PASS isr-shrinks-to-one-then-leader-lost');
    const [a, b] = [run(FIXTURE, '--json'), run(FIXTURE, '--json')];
    const line = JSON.parse(a.stdout);
    expect(line).toMatchObject({ scenario: 'isr-shrinks-to-one-then-leader-lost', passed: true, bug: null });
    expect(line.trace_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(b.stdout).trace_hash).toBe(line.trace_hash);
  });

  it('exits 1 with FAIL lines when a buggy variant breaks the scenario', () => {
    const r = run(FIXTURE, '--bug', 'uncleanElection');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('FAIL eventually[1] topic-acked');
    expect(r.stdout).toContain('FAIL invariants: ');
  });

  it('exits 2 naming the field of a bad scenario file, before running anything', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mqsim-scenario-'));
    const bad = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    bad.eventually.within_ms = 'soon';
    writeFileSync(join(dir, 'bad.json'), JSON.stringify(bad));
    const r = run(join(dir, 'bad.json'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('/eventually/within_ms must be integer');
    expect(r.stdout).toBe('');
    expect(run(join(dir, 'missing.json')).status).toBe(2);
  });
});
