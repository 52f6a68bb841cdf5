import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../switches/dialects.ts';

/** `mqsim serve --dialect` and `--ui` from the command line: listed in --help, mistakes are usage errors. */

const BIN = fileURLToPath(new URL('../../bin/mqsim.js', import.meta.url));
const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 30_000 });

describe('mqsim serve --dialect / --ui', () => {
  it('--help lists the robustmq dialect switch by switch, with what it leaves out and why', () => {
    const help = run(['serve', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--dialect <name>');
    expect(help.stdout).toContain('--ui <dir>');
    const section = help.stdout.slice(help.stdout.indexOf('Dialect robustmq'), help.stdout.indexOf('Dashboard (--ui DIR)'));
    for (const id of DIALECTS.robustmq.switches)
      expect(section, id).toMatch(new RegExp(`^  ${id} +\\[(breaks spec|spec allows), notes §`, 'm'));
    for (const o of DIALECTS.robustmq.omitted) expect(section).toContain(o.why);
  });

  it('refuses an unknown dialect, --envelope A with robustmq, and a --ui folder without index.html (exit 2, one sentence)', () => {
    const unknown = run(['serve', '--port', '0', '--dialect', 'emqx']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/--dialect/);
    const envelope = run(['serve', '--port', '0', '--dialect', 'robustmq', '--envelope', 'A']);
    expect(envelope.status).toBe(2);
    expect(envelope.stderr).toMatch(/--envelope A contradicts --dialect robustmq/);
    const ui = run(['serve', '--port', '0', '--ui', '/nonexistent/mqsim-dist']);
    expect(ui.status).toBe(2);
    expect(ui.stderr).toMatch(/--ui \/nonexistent\/mqsim-dist: no such directory/);
  });
});
