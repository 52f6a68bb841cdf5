import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenLinks, linksOf } from './markdown-links.ts';

describe('linksOf', () => {
  it('finds links in paragraphs, lists and tables, and none in code', () => {
    const md = [
      'See [a](a.md).',
      '',
      '- [b](b.md#x)',
      '',
      '| c |',
      '|---|',
      '| [c](c.md) |',
      '',
      '```',
      '[d](d.md)',
      '```',
      '`[e](e.md)`',
    ].join('\n');
    expect(linksOf(md)).toEqual(['a.md', 'b.md#x', 'c.md']);
  });
});

describe('anchorsOf', () => {
  it('slugs headings as GitHub does: code spans as their text, punctuation dropped, repeats numbered', () => {
    const md = '# Running `mqsim serve`\n\n## Durable state\n\n## Options: `--dialect robustmq`\n\n## Durable state\n';
    expect([...anchorsOf(md)]).toEqual(['running-mqsim-serve', 'durable-state', 'options---dialect-robustmq', 'durable-state-1']);
  });
});

describe('brokenLinks', () => {
  const root = mkdtempSync(join(tmpdir(), 'mqsim-links-'));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'guide.md'), '# Guide\n\n## Durable state\n');
  writeFileSync(join(root, 'code.ts'), 'export {};\n');

  const check = (md: string) => {
    writeFileSync(join(root, 'README.md'), md);
    return brokenLinks(root, join(root, 'README.md')).map((b) => b.reason);
  };

  it('accepts existing files, directories, headings and external links', () => {
    expect(
      check('[g](docs/guide.md#durable-state) [d](docs/) [c](code.ts#L1) [w](https://example.org/x.md#nowhere) [self](#top)\n# Top\n'),
    ).toEqual([]);
  });

  it('reports a missing file, a missing heading and a path out of the repository', () => {
    expect(check('[a](docs/missing.md) [b](docs/guide.md#durable) [c](../shared/spec/admin-http-api.md)')).toEqual([
      'docs/missing.md does not exist',
      'docs/guide.md has no heading #durable',
      'it leads outside the repository',
    ]);
  });
});
