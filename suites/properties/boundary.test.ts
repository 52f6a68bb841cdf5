import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const HERE = fileURLToPath(new URL('.', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

describe('the property suites are independent of the simulator', () => {
  it('no module of suites/properties (tests aside) imports sim/ or the sim target: the reference model is written from the spec', () => {
    const files = sources(HERE).filter((f) => !f.endsWith('.test.ts'));
    expect(files.length).toBeGreaterThan(10);
    const offenders = files
      .filter((f) => /(from\s+|import\(\s*)['"][^'"]*(\/sim\/|sim-target)/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(HERE, f));
    expect(offenders).toEqual([]);
  });

  it('tests reach the simulator only through the sim target', () => {
    const offenders = sources(HERE)
      .filter((f) => f.endsWith('.test.ts'))
      .filter((f) => /(from\s+|import\(\s*)['"](\.\.\/)+sim\//.test(readFileSync(f, 'utf8')))
      .map((f) => relative(HERE, f));
    expect(offenders).toEqual([]);
  });
});
