import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LONG_RUNS, LONGEST_FIRST, SLOW_TESTS } from './test-tiers.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TEST_ROOTS = ['lib', 'contract', 'sim', 'suites', 'fixtures', 'scripts', 'examples'];

/** A module that starts processes: whoever imports it (at any depth) may spawn. */
const SPAWNS = /(?:from\s+|import\()\s*'node:child_process'/;
/** Clients of a real service, the browser driver, Docker: only the test file's own imports count, since
 * the simulator links the live connectors' clients without ever calling a server in its in-process tests. */
const TALKS_TO_SERVICES =
  /(?:from\s+|import\()\s*'(?:pg|ioredis|amqplib|mysql2(?:\/promise)?|nats|playwright-core|testcontainers|[^']*\/docker-target\.ts|\.\/docker-target\.ts)'/;
const LOCAL_IMPORT = /(?:from\s+|import\()\s*'(\.{1,2}\/[^']+\.ts)'/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The chain of imports from `file` to a module that spawns a process, or undefined. */
function spawnChain(file: string, seen: Set<string>): string[] | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  if (SPAWNS.test(source)) return [relative(ROOT, file)];
  for (const [, spec] of source.matchAll(LOCAL_IMPORT)) {
    const target = resolve(dirname(file), spec);
    if (!existsSync(target)) continue;
    const chain = spawnChain(target, seen);
    if (chain) return [relative(ROOT, file), ...chain];
  }
  return undefined;
}

/** Why a test file belongs to the slow tier, or undefined when it runs in-process only. */
function slowBecause(file: string): string | undefined {
  const service = TALKS_TO_SERVICES.exec(readFileSync(file, 'utf8'));
  if (service) return `imports ${service[0].replace(/^(from\s+|import\()\s*/, '')}`;
  const chain = spawnChain(file, new Set());
  return chain && `starts processes: ${chain.join(' → ')}`;
}

describe('the fast tier (vitest.fast.config.ts) leaves out the slow test files', () => {
  const all = TEST_ROOTS.flatMap((d) => testFiles(join(ROOT, d))).map((f) => relative(ROOT, f));
  const reasons = new Map(all.map((f) => [f, slowBecause(join(ROOT, f))]));

  it('lists every test file that spawns a process or needs a real service, Chromium or Docker', () => {
    const missing = all.filter((f) => reasons.get(f) !== undefined && !SLOW_TESTS.includes(f)).map((f) => `${f}: ${reasons.get(f)}`);
    expect(missing, 'add these to SLOW_TESTS in scripts/test-tiers.ts').toEqual([]);
  });

  it('lists only test files that exist and are slow for one of those reasons', () => {
    const wrong = SLOW_TESTS.filter((f) => !reasons.has(f) || reasons.get(f) === undefined);
    expect(wrong, 'gone or in-process only: remove from SLOW_TESTS').toEqual([]);
    expect(new Set(SLOW_TESTS).size).toBe(SLOW_TESTS.length);
  });

  it('lists long in-process runs that exist, once, and not among the slow ones', () => {
    expect(LONG_RUNS.filter((f) => !reasons.has(f))).toEqual([]);
    expect(LONG_RUNS.filter((f) => SLOW_TESTS.includes(f))).toEqual([]);
    expect(new Set(LONG_RUNS).size).toBe(LONG_RUNS.length);
  });

  it('puts first only test files that exist, once, and are in one of the tiers left out of the fast one', () => {
    expect(LONGEST_FIRST.filter((f) => !reasons.has(f))).toEqual([]);
    expect(LONGEST_FIRST.filter((f) => !SLOW_TESTS.includes(f) && !LONG_RUNS.includes(f))).toEqual([]);
    expect(new Set(LONGEST_FIRST).size).toBe(LONGEST_FIRST.length);
  });

  it('finds the spawn behind a helper (the rule reads imports, not only the test file)', () => {
    expect(reasons.get('scripts/bench/list-bench.test.ts')).toMatch(/list-bench\.ts → suites\/targets\/spawned-target\.ts$/);
    expect(reasons.get('sim/io/http/cors-browser.test.ts')).toBe("imports 'playwright-core'");
    expect(reasons.get('sim/io/serve/cluster-server.test.ts')).toBeUndefined();
  });
});
