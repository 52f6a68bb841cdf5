import { writeSync } from 'node:fs';
import { startupSnapshot } from 'node:v8';
import { buildCheckpointModel, readJob } from './checkpoint/checkpoint-model.ts';

/**
 * The script of a checkpoint build, bundled into one CommonJS file (checkpoint-bundle.ts) and run as
 * `node --snapshot-blob TMP --build-snapshot BUNDLE`: it rebuilds the model up to the journal record
 * it was given, then V8 writes the whole heap out. Started from that snapshot, the process goes on in
 * `restored` below, which loads the I/O layer only then (node:http and the other I/O modules cannot
 * be in a Node 20 snapshot; the bundler defers what is imported dynamically).
 */
if (!startupSnapshot.isBuildingSnapshot()) {
  process.stderr.write('mqsim: this script builds a checkpoint: mqsim serve runs it with --build-snapshot\n');
  process.exit(2);
}
const job = readJob();
buildCheckpointModel(job).then(
  (built) => {
    // What it covers, for serve's description of the checkpoint (fd 1 written directly: no stream handle in a snapshot).
    writeSync(1, `${JSON.stringify({ writes: built.writes, virtualNow: built.virtualNow })}\n`);
    startupSnapshot.setDeserializeMainFunction(() => {
      const verify = process.env.MQSIM_CHECKPOINT_VERIFY;
      if (verify)
        void import('./checkpoint/checkpoint-probe.ts').then(
          (m) => m.verifyRestored(built, verify),
          (e: unknown) => {
            process.stderr.write(`mqsim: ${(e as Error)?.stack ?? String(e)}\n`);
            process.exit(1);
          },
        );
      else void import('./checkpoint-restored.ts').then((m) => m.runRestored(built));
    });
  },
  (e: unknown) => {
    process.stderr.write(`mqsim: checkpoint build failed: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(1);
  },
);
