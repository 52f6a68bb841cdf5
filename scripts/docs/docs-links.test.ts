import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { brokenLinks } from './markdown-links.ts';

/**
 * The README is a newcomer's guide and the docs are for their readers: every relative link leads to
 * a file of this repository (and heading), the README stays short enough to read in one sitting
 * (design notes and figures belong in docs/), and no document speaks in issue numbers.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const README_MAX_LINES = 250;

describe('README.md and docs/', () => {
  it.each(DOCS)('%s: every relative link leads to an existing file and heading', (doc) => {
    expect(brokenLinks(ROOT.replace(/\/$/, ''), join(ROOT, doc))).toEqual([]);
  });

  it(`README.md has at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it.each(DOCS)('%s names no issue numbers', (doc) => {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    expect(text.match(/\bissues? #?\d+|(?:^|[\s(])#\d+\b/gim) ?? []).toEqual([]);
  });
});
