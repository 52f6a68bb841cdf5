import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SUITES = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

describe('the suites/ → sim/ boundary', () => {
  it('only the sim target adapter imports sim/ (the suites check the simulator as any other server)', () => {
    const offenders = sources(SUITES)
      .filter((file) => !file.endsWith(join('targets', 'sim-target.ts')))
      .filter((file) => /from\s+['"](\.\.\/)+sim\/|import\(\s*['"](\.\.\/)+sim\//.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SUITES, file));
    expect(offenders).toEqual([]);
  });
});
