import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEVIATION_IDS } from './catalogue.ts';

/** `mqsim serve --deviation`: the way to switch deviations on from the command line. */

const BIN = fileURLToPath(new URL('../../bin/mqsim.js', import.meta.url));

const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 30_000 });

describe('mqsim serve --deviation', () => {
  it('lists every deviation id in --help', () => {
    const help = run(['serve', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--deviation <id...>');
    for (const id of DEVIATION_IDS) expect(help.stdout, id).toContain(id);
  });

  it('refuses an unknown id with a usage error (exit 2) naming it, also inside a comma list', () => {
    const bad = run(['serve', '--port', '0', '--deviation', 'topic-list-limit-ignored,no-such-bug']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown deviation "no-such-bug"/);
  });
});
