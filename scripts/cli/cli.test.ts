import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { CLI_COMMANDS } from './main.ts';

const BIN = fileURLToPath(new URL('../../bin/mqsim.js', import.meta.url));

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('mqsim CLI', () => {
  it('shows help with examples for every command', () => {
    const top = run(['--help']);
    expect(top.status).toBe(0);
    for (const cmd of ['serve', 'conform', 'openapi']) {
      expect(top.stdout).toContain(cmd);
      const help = run([cmd, '--help']);
      expect(help.status, cmd).toBe(0);
      expect(help.stdout, cmd).toMatch(/Examples?:/);
    }
  });

  it('lists each command with the term its module gives it, without loading the module', async () => {
    for (const entry of CLI_COMMANDS) {
      const cmd = new Command(entry.name);
      (await entry.load())(cmd);
      expect(`${entry.name} ${entry.term}`.trim(), entry.name).toBe(new Help().subcommandTerm(cmd));
    }
    // `mqsim --help` must not load the simulator: main.ts imports commander and two small modules only;
    // the commands come through the dynamic imports of CLI_COMMANDS.
    const staticImports = [...readFileSync(new URL('./main.ts', import.meta.url), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map(
      (m) => m[1],
    );
    expect(staticImports.sort()).toEqual(['../../sim/version.ts', './usage-error.ts', 'commander']);
    expect(run(['help', 'replay']).stdout).toContain('Usage: mqsim replay [options] <file>');
  });

  it('exits 2 on a usage error with a clear message', () => {
    const bad = run(['serve', '--nodes', '12']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--nodes must be an integer from 1 to 9/);
    expect(run(['no-such-command']).status).toBe(2);
  });

  it('serves, prints the base URL once ready, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--workload', 'none', '--nodes', '2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('serve did not print its URL in time')), 20_000);
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = stdout.split('\n').find((l) => l.startsWith('http://'));
        if (line) {
          clearTimeout(timer);
          resolve(line.trim());
        }
      });
      child.on('exit', (code) => reject(new Error(`serve exited early with ${code}`)));
    });
    const res = await fetch(`${url}/api/cluster/tenant/list`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.data.map((t: any) => t.tenant_name)).toEqual(['default']);
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
