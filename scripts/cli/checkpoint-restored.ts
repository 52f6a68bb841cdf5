import { Socket } from 'node:net';
import type { Cluster } from '../../sim/model/cluster/cluster.ts';
import { loadState } from '../../sim/io/state/state-load.ts';
import type { PreparedServe } from './serve-prepare.ts';
import { adminOf, runServe, type RestoredModel } from './serve-run.ts';
import { UsageError } from './usage-error.ts';
import type { BuiltCheckpoint } from './checkpoint/checkpoint-model.ts';
import { CHECKPOINT_UNUSABLE } from './checkpoint/checkpoint-restore.ts';

/** The first line sent on `channel`. */
function firstLine(channel: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (d: Buffer): void => {
      text += d.toString();
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      channel.off('data', onData);
      resolve(text.slice(0, nl));
    };
    channel.on('data', onData);
    channel.once('end', () => reject(new Error('the serve that started this process is gone')));
  });
}

/**
 * The process started from a checkpoint: told by its parent (the `mqsim serve` the user started) what
 * this start is, over fd 3, it replays the journal's tail onto the restored model and serves exactly
 * as a normal start does. When the parent is gone (the pipe closes, or it is re-parented) it exits at
 * once: nothing acknowledged is lost by that, as every answer waited for its record to be durable.
 */
export async function runRestored(built: BuiltCheckpoint): Promise<void> {
  const parent = process.ppid;
  // A checkpoint asked for (SIGUSR2, passed on by the parent) before this process builds them is
  // ignored rather than fatal (the default action of SIGUSR2).
  process.on('SIGUSR2', () => {});
  const channel = new Socket({ fd: 3, readable: true, writable: true });
  const gone = (): never => process.exit(1);
  channel.on('error', gone);
  channel.write('started\n');
  const { prepared, buildId } = JSON.parse(await firstLine(channel)) as { prepared: PreparedServe; buildId: string };
  // The description the parent checked belongs to another build than this snapshot (a crash between the two renames).
  if (buildId !== built.buildId) process.exit(CHECKPOINT_UNUSABLE);
  channel.on('end', gone);
  channel.on('close', gone);
  setInterval(() => process.ppid !== parent && gone(), 200).unref();
  let listening = false;
  try {
    const loaded = loadState(prepared.opts.state!);
    if (!loaded || loaded.state.writes.length < built.writes) process.exit(CHECKPOINT_UNUSABLE);
    built.model.cluster.auth.replaceSettings(adminOf(prepared));
    const advance = (cluster: Cluster, to: number): void => {
      while (cluster.now() < to) {
        if (process.ppid !== parent) gone();
        cluster.engine.runUntil(Math.min(to, cluster.now() + 60_000));
      }
    };
    const restored: RestoredModel = { ...built, steps: { advance }, onListening: () => (listening = true) };
    await runServe(prepared, loaded, restored);
    process.exit(process.exitCode ?? 0);
  } catch (e) {
    // Before it served, whatever failed is the checkpoint's to answer for: the parent replays the whole journal.
    if (!listening) process.exit(CHECKPOINT_UNUSABLE);
    process.stderr.write(`mqsim: ${(e as Error)?.message ?? e}\n`);
    process.exit(e instanceof UsageError ? 2 : 1);
  }
}
