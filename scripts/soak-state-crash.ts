/**
 * Crash soak of `mqsim serve --state FILE`: eight concurrent writers (every writable family, control
 * writes under /_sim/, MQTT clients through the listener) while the server is killed with SIGKILL at
 * seeded random moments and restarted on the same file; after each restart every write is checked.
 * Prints progress, then the tally; exit 1 when an acknowledged write was lost, a write was
 * half-applied, a restart refused the file, or writes came back out of order.
 * See scripts/cli/testing/crash-torture.ts.
 *
 *   npm run soak:state-crash -- --kills 30 --seed 7 [--port 64000] [--mqtt-port 64100] [--life-ms 150,1500] [--keep]
 *                               [--start-kills 0.3] [--checkpoints 3]
 *
 * --start-kills P: each restart is, with chance P, first itself killed 0-3 s after it was spawned
 * (while it reads, replays or cuts its file, or just after it began serving); default 0.
 *
 * --checkpoints N: the kill moments include "during a checkpoint" (serve is sent SIGUSR2, which asks it
 * for one, and the kill follows 0-20 ms later), and every Nth life first waits until a checkpoint is
 * made, so the next start is restored from it and its kill lands right after (0: neither; default 3).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argNumber, argText } from './bench/script-args.ts';
import { runCrashTorture } from './cli/testing/crash-torture.ts';
import { formatCrashTally, crashTortureFailed } from './cli/testing/crash-tally.ts';

const kills = Math.round(argNumber('kills', 30, { positive: true }));
const seed = argText('seed', String(Date.now() % 100_000));
const port = Math.round(argNumber('port', 58_080, { positive: true }));
const mqttPort = Math.round(argNumber('mqtt-port', 1_884, { positive: true }));
const lifeMs = argText('life-ms', '150,1500').split(',').map(Number) as [number, number];
if (lifeMs.length !== 2 || !lifeMs.every((n) => Number.isFinite(n) && n >= 0) || lifeMs[0] > lifeMs[1]) {
  process.stderr.write(`soak-state-crash: --life-ms needs MIN,MAX in ms, got ${JSON.stringify(argText('life-ms', ''))}\n`);
  process.exit(2);
}
const checkpointEvery = Math.round(argNumber('checkpoints', 3));
const startKills = argNumber('start-kills', 0);
if (startKills < 0 || startKills > 1) {
  process.stderr.write(`soak-state-crash: --start-kills needs a chance between 0 and 1, got ${startKills}\n`);
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'mqsim-state-crash-'));
const stateFile = join(dir, 'torture.state');

process.stderr.write(
  `soak-state-crash: seed ${seed}, ${kills} kills, 8 writers, 3 nodes on ports ${port}-${port + 2} (MQTT ${mqttPort}-${mqttPort + 2}), state ${stateFile}\n` +
    `  (again: npm run soak:state-crash -- --kills ${kills} --seed ${seed}${startKills > 0 ? ` --start-kills ${startKills}` : ''} --checkpoints ${checkpointEvery})\n`,
);
const started = performance.now();
const result = await runCrashTorture({
  seed,
  kills,
  stateFile,
  dir,
  port,
  mqttPort,
  lifeMs,
  startKills,
  onProgress: (line) => process.stderr.write(`  ${line}\n`),
  ...(checkpointEvery > 0
    ? { checkpoint: async (served) => void served.child.kill('SIGUSR2'), completeCheckpointEvery: checkpointEvery }
    : {}),
});
console.log(formatCrashTally(result, (performance.now() - started) / 1000));
if (process.argv.includes('--keep')) process.stderr.write(`soak-state-crash: state file kept: ${stateFile}\n`);
else rmSync(dir, { recursive: true, force: true });
if (crashTortureFailed(result)) {
  process.stderr.write('soak-state-crash: FAILED\n');
  process.exitCode = 1;
}
