import type { Command } from 'commander';
import { addServeOptions, type ServeOptions } from './serve-options.ts';
import { serveHelpText } from './serve-help.ts';
import { prepareServe } from './serve-prepare.ts';
import { modelOptionsOf, runServe } from './serve-run.ts';
import { runFromCheckpoint, usableCheckpoint } from './checkpoint/checkpoint-restore.ts';
import { removeCheckpoint } from './checkpoint/checkpoint-files.ts';

/**
 * `mqsim serve`: the option table (serve-options.ts), the help text (serve-help.ts), and the run:
 * checked and resolved (serve-prepare.ts), then served here (serve-run.ts) or, when the state file
 * has a usable checkpoint, by a process restored from it (checkpoint/checkpoint-restore.ts).
 */
export function configureServeCommand(cmd: Command): void {
  addServeOptions(cmd)
    .addHelpText('after', serveHelpText())
    .action(async (opts: ServeOptions, cmd: Command) => {
      const { prepared, loaded, lock } = await prepareServe(cmd, opts);
      if (loaded && opts.state && opts.checkpoint) {
        const meta = await usableCheckpoint(opts.state, modelOptionsOf(prepared));
        if (meta) {
          const outcome = await runFromCheckpoint(opts.state, prepared, meta, lock);
          if (outcome !== 'fallback') {
            process.exitCode = outcome;
            return;
          }
          process.stderr.write(
            `mqsim serve: the checkpoint of ${opts.state} could not be used; it is removed, replaying the whole journal\n`,
          );
          removeCheckpoint(opts.state);
        }
      }
      await runServe(prepared, loaded);
    });
}
