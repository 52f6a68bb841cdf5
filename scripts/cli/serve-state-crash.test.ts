import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopAll } from './testing/serve-process.ts';
import { runCrashTorture } from './testing/crash-torture.ts';
import { formatCrashTally } from './testing/crash-tally.ts';

/**
 * `mqsim serve --state FILE` killed with SIGKILL while eight writers write (every writable family,
 * control writes, MQTT clients through the listener), restarted on the same file each time: no
 * acknowledged write is lost, none is half-applied, each writer's writes come back as a prefix, and
 * the server always starts on its own file. A bounded run of the soak `npm run soak:state-crash`
 * (scripts/cli/testing/crash-torture.ts), with a fixed seed; MQSIM_CRASH_SEED picks another.
 */

const dir = mkdtempSync(join(tmpdir(), 'mqsim-state-crash-'));
afterAll(() => {
  stopAll();
  rmSync(dir, { recursive: true, force: true });
});

const seed = process.env.MQSIM_CRASH_SEED ?? '20261127';

describe('mqsim serve --state under kill -9', () => {
  it(`keeps every acknowledged write through 3 kills at seeded moments (seed ${seed})`, async () => {
    const result = await runCrashTorture({
      seed,
      kills: 3,
      stateFile: join(dir, 'torture.state'),
      dir,
      port: 0,
      mqttPort: 0,
      lifeMs: [300, 900],
      // Kills while a checkpoint is built, and (lives 2 and 4 start from one made in lives 1 and 3) right after a restart from one.
      checkpoint: async (life) => void life.child.kill('SIGUSR2'),
      completeCheckpointEvery: 2,
    });
    const tally = formatCrashTally(result, 0);
    expect(result.kills, tally).toBe(3);
    expect(result.acknowledged, tally).toBeGreaterThan(20);
    expect(result.refusedStarts, tally).toEqual([]);
    expect(result.checkpointsMade, tally).toBe(2);
    expect(result.checkpointStarts, tally).toBeGreaterThanOrEqual(2);
    expect(result.lost, tally).toEqual([]);
    expect(result.halfApplied, tally).toEqual([]);
    expect(result.outOfOrder, tally).toEqual([]);
    expect(result.unstable, tally).toEqual([]);
    expect(result.failedAnswers, tally).toEqual([]);
  }, 150_000);
});
