import { startClusterServer, type RunningCluster } from '../../sim/io/serve/cluster-server.ts';
import type { ServedModel, ServedModelOptions } from '../../sim/io/serve/served-model.ts';
import type { ReplaySteps } from '../../sim/io/state/state-replay.ts';
import { StateKeeper } from '../../sim/io/state/state-keeper.ts';
import type { LoadedState } from '../../sim/io/state/state-load.ts';
import { StateFileError } from '../../sim/io/state/state-file.ts';
import { MQSIM_VERSION } from '../../sim/version.ts';
import { DIALECTS } from '../../sim/switches/dialects.ts';
import { UsageError } from './usage-error.ts';
import { replayReporter, warmUpReporter } from './serve-progress.ts';
import type { PreparedServe } from './serve-prepare.ts';
import { startCheckpoints, type CheckpointPlan, type CheckpointRuns } from './checkpoint/checkpoint-schedule.ts';

/** A model restored from a checkpoint: it holds the first `writes` writes of the journal already. */
export interface RestoredModel {
  model: ServedModel;
  writes: number;
  virtualNow: number;
  /** How the journal's tail is replayed (the restored process stops when its parent is gone). */
  steps?: ReplaySteps;
  /** Told once the listeners are open and the URL printed. */
  onListening?: () => void;
}

/**
 * The options that decide the model besides the journal: what a checkpoint is built with and must
 * match to be used. No secret: the signing secret and a password in clear are given at each start.
 */
export function modelOptionsOf(p: PreparedServe): ServedModelOptions {
  const { opts } = p;
  return {
    seed: opts.seed,
    nodes: opts.nodes,
    host: opts.host,
    port: opts.port,
    workload: opts.workload,
    epochMs: p.epochMs,
    envelope: p.envelope,
    dialect: opts.dialect,
    deviations: opts.deviation,
    ...(opts.clients !== undefined ? { clients: opts.clients } : {}),
    ...(opts.mqttPort !== undefined ? { secretFreeLogin: opts.mqttLogin === 'secret-free' } : {}),
    admin: { username: opts.adminUser, passwordHash: p.secrets.passwordHash, tokenTtlHours: opts.tokenTtlHours },
  };
}

/** What the checkpoints of a start with --state are made of. */
function checkpointPlanOf(p: PreparedServe): CheckpointPlan {
  return { state: p.opts.state!, every: p.opts.checkpointEvery, model: modelOptionsOf(p), epochMs: p.epochMs };
}

/** The state file's keeper; `now` gives the virtual time reached once the server runs. */
function makeKeeper(p: PreparedServe, loaded: LoadedState | undefined, now: () => number | undefined): StateKeeper {
  return new StateKeeper({
    path: p.opts.state!,
    mqsimVersion: MQSIM_VERSION,
    options: p.stateOptions,
    ...(loaded ? { loaded } : {}),
    virtualNow: () => now() ?? loaded?.state.virtualNow ?? p.epochMs,
    // Durability can no longer be promised: stop at once, as a database would, rather than go on answering.
    onFatal: (e) => {
      process.stderr.write(`mqsim serve: ${e.message}; stopping (writes not yet answered were not acknowledged)\n`);
      process.exit(1);
    },
    onNotice: (line) => process.stderr.write(`mqsim serve: ${line}\n`),
  });
}

/**
 * The replay of a state file. A user create an older mqsim journaled with the password in clear is
 * replaced, in the writes the keeper saves (the same objects), by its body with the stored hash.
 */
function resumeFrom(loaded: LoadedState, where: string, onSealed: () => void) {
  const recorded = loaded.state;
  return {
    writes: recorded.writes,
    virtualNow: recorded.virtualNow,
    where,
    onSealed: (i: number, body: string) => {
      recorded.writes[i].body = body;
      onSealed();
    },
  };
}

async function startServer(
  p: PreparedServe,
  loaded: LoadedState | undefined,
  keeper: StateKeeper | undefined,
  restored: RestoredModel | undefined,
  onSealed: () => void,
): Promise<RunningCluster> {
  const { opts } = p;
  try {
    return await startClusterServer(
      {
        ...modelOptionsOf(p),
        ...(opts.mqttPort !== undefined ? { mqttPort: opts.mqttPort } : {}),
        ...(p.ui ? { ui: p.ui } : {}),
        ...(opts.control ? { control: true } : {}),
        ...(opts.nats ? { nats: opts.nats } : {}),
        ...(opts.liveConnectors ? { liveConnectors: true } : {}),
        ...(loaded && opts.state ? { resume: resumeFrom(loaded, opts.state, onSealed) } : {}),
        resumeSteps: { ...restored?.steps, onProgress: replayReporter(performance.now(), (line) => process.stderr.write(line)) },
        ...(keeper ? { onModelWrite: (w) => keeper.append(w), durableOutput: keeper } : {}),
        admin: adminOf(p),
        onWarmUp: warmUpReporter(performance.now(), (line) => process.stderr.write(line)),
        onInternalError: (e) => process.stderr.write(`mqsim: internal error (a bug, please report): ${(e as Error)?.stack ?? e}\n`),
      },
      restored?.model,
    );
  } catch (e) {
    if (e instanceof StateFileError) throw new UsageError(e.message);
    throw e;
  }
}

/** The administrator of this start: the recorded or given password's hash, this start's secrets. */
export function adminOf(p: PreparedServe) {
  const { secrets } = p;
  return {
    ...p.stateOptions.admin,
    jwtSecret: secrets.jwtSecret,
    ...(secrets.password !== undefined ? { password: secrets.password } : {}),
  };
}

/** What serve prints on stderr once it listens: the nodes, what is on, the state file. */
function startLines(p: PreparedServe, running: RunningCluster, loaded: LoadedState | undefined, replayed: string): string {
  const { opts, envelope, ui } = p;
  const recorded = loaded?.state;
  return (
    `mqsim serve: ${opts.nodes} node(s), seed ${opts.seed}, workload ${opts.workload}, dialect ${opts.dialect}${opts.dialect !== 'spec' ? ` (${DIALECTS[opts.dialect].switches.length} switches)` : ''}, envelope ${envelope}, virtual epoch ${new Date(p.epochMs).toISOString()}\n` +
    running.nodeUrls.map((u, i) => `  node ${i + 1}: ${u}\n`).join('') +
    (opts.control ? `  control interface: ${running.baseUrl}/_sim/ (loopback only)\n` : '') +
    (ui ? `  dashboard: ${ui} at ${running.baseUrl}/\n` : '') +
    (running.mqtt
      ? running.mqtt.ports
          .map((port, i) => `  node ${i + 1} MQTT: mqtt://${opts.host}:${port} (MQTT 3.1.1 and 5 over TCP; login ${opts.mqttLogin})\n`)
          .join('')
      : '') +
    (opts.nats ? `  mq9 over NATS: ${opts.nats}\n` : '') +
    (opts.liveConnectors
      ? '  LIVE CONNECTORS ON: webhook, mqtt, redis, postgres, mysql, rabbitmq and file connectors deliver for real\n'
      : '') +
    (opts.deviation.length > 0 ? `  DEVIATIONS ON (deliberately broken behaviours): ${opts.deviation.join(', ')}\n` : '') +
    (opts.state
      ? recorded
        ? `  state: ${opts.state}: resumed ${recorded.writes.length} write(s) up to virtual ${new Date(recorded.virtualNow).toISOString()} in ${replayed}\n`
        : `  state: ${opts.state} (new)\n`
      : '')
  );
}

/** Resolves on the first SIGINT or SIGTERM (the handlers go in before the URL is printed). */
function stopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Stops serving: listeners, then the journal (its last records durable), then the summary lines. */
async function shutdown(
  p: PreparedServe,
  running: RunningCluster,
  keeper: StateKeeper | undefined,
  checkpoints?: CheckpointRuns,
): Promise<void> {
  checkpoints?.stop();
  await running.close();
  if (keeper) {
    try {
      await keeper.close();
      process.stderr.write(
        `mqsim serve: state saved to ${p.opts.state} (${keeper.writeCount} write(s))\nmqsim serve: journal: ${keeper.summary}\n`,
      );
    } catch (e) {
      process.stderr.write(`mqsim serve: ${(e as Error).message}\n`);
      process.exitCode = 1;
    }
  }
  process.stderr.write(
    `mqsim serve: stopped (trace ${running.cluster.engine.trace.length} entries, hash ${running.cluster.engine.trace.hash.slice(0, 16)})\n`,
  );
}

/**
 * Serves until SIGINT or SIGTERM: the cluster (restored from a checkpoint, or built and replayed
 * here), the journal, and with --state the background checkpoints.
 */
export async function runServe(p: PreparedServe, loaded: LoadedState | undefined, restored?: RestoredModel): Promise<void> {
  const { opts } = p;
  let rewrite = p.secrets.rewrite;
  // The keeper asks for the virtual time reached; the server exists only once the replay is done.
  const live: { running?: RunningCluster } = {};
  const keeper = opts.state ? makeKeeper(p, loaded, () => (live.running?.app.syncClock(), live.running?.cluster.now())) : undefined;
  // The demo simulates an hour of history before listening: at 100,000 clients that takes many
  // seconds, so say what is happening instead of sitting silent (then a line about every 2 s).
  if (opts.workload === 'demo' && (opts.clients ?? 0) >= 5_000 && !restored) {
    process.stderr.write(
      `mqsim serve: simulating one virtual hour of the demo with ${opts.clients} clients before the listeners open...\n`,
    );
  }
  const replayStarted = performance.now();
  const running = await startServer(p, loaded, keeper, restored, () => (rewrite = true));
  live.running = running;
  // A new state file is created at once, so a wrong path shows now, not at the first write; a
  // resumed one is touched only now that its replay succeeded (a torn last record cut off, format 1
  // converted; an older file's secrets in clear, or a replaced password, written out anew).
  if (keeper) {
    try {
      await keeper.open({ rewrite });
    } catch (e) {
      await running.close();
      throw new Error(`could not open the state file ${opts.state}: ${(e as Error).message}`, { cause: e });
    }
  }
  for (const line of p.secrets.notes) process.stderr.write(`mqsim serve: ${line}\n`);
  const seconds = `${((performance.now() - replayStarted) / 1000).toFixed(2)} s`;
  process.stderr.write(startLines(p, running, loaded, restored ? `${seconds} from the checkpoint at write ${restored.writes}` : seconds));
  const stopped = stopSignal();
  const checkpoints = keeper && opts.checkpoint ? startCheckpoints(checkpointPlanOf(p), keeper, running, restored) : undefined;
  process.stdout.write(`${running.baseUrl}\n`);
  restored?.onListening?.();
  await stopped;
  await shutdown(p, running, keeper, checkpoints);
}
