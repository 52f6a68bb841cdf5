import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The README's library example is this directory's test file, word for word: what it shows runs. */
describe('the README example', () => {
  it('is examples/broker-admin.test.ts', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const example = readFileSync(new URL('./broker-admin.test.ts', import.meta.url), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(example);
  });
});
