import { Cluster, type WarmUpProgress } from '../../model/cluster/cluster.ts';
import type { ClusterOptions } from '../../model/nodes/cluster-options.ts';
import { AdminApp } from '../../admin-api/admin-app.ts';
import type { EnvelopeForm } from '../../admin-api/envelope.ts';
import type { ServedApi } from '../../admin-api/served-api.ts';
import { DIALECTS, switchesOf, type DialectName } from '../../switches/dialects.ts';
import type { Deviation } from '../../admin-api/hooks/deviation.ts';
import { resolveDeviations } from '../../switches/resolve-switches.ts';
import { replayWrites, type ReplaySteps } from '../state/state-replay.ts';
import type { JournaledWrite } from '../state/state-file.ts';

/**
 * The model half of a served cluster: the cluster built and started from its options, and the
 * replay of a recorded run onto it, with no I/O at all. `startClusterServer` serves one; a
 * checkpoint of `mqsim serve --state` (scripts/cli/checkpoint/) builds one in a process that is
 * then written out as a V8 startup snapshot, so this module must not load node:http, node:net or
 * any other I/O module.
 */
export interface ServedModelOptions extends Omit<ClusterOptions, 'basePort'> {
  /** HTTP port of node 1 (0: ephemeral ports; the model then registers 58080 until the listeners say otherwise). */
  port?: number;
  envelope?: EnvelopeForm;
  deviations?: readonly string[];
  dialect?: DialectName;
  /** Size of the demo client population (`--clients`). */
  clients?: number;
  api?: ServedApi;
  /** Called after every virtual minute of the warm-up (a served demo runs an hour before it listens). */
  onWarmUp?: (progress: WarmUpProgress) => void;
}

export interface ServedModel {
  cluster: Cluster;
  envelope: EnvelopeForm;
  /** What every AdminApp over this model is given: the dialect's switches and the deviations (resolved), the endpoints. */
  appOptions: { deviations?: readonly Deviation[]; api?: ServedApi };
  /** Writes of the recorded run applied so far (a checkpoint holds a model part-way through). */
  replayed: number;
  /** The manual-clock app the recorded writes are replayed through (made at the first replay). */
  replaying?: AdminApp;
}

/** Builds and starts the cluster (a demo first simulates its hour of history). */
export function createServedModel(options: ServedModelOptions): ServedModel {
  const host = options.host ?? '127.0.0.1';
  const registeredHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const port = options.port ?? 58080;
  // A served demo starts with an hour of history, so dashboards and monitor series have data at once.
  const warmUpMs = options.warmUpMs ?? (options.workload === 'demo' ? 3_600_000 : 0);
  const cluster = new Cluster({ ...options, warmUpMs, host: registeredHost, basePort: port === 0 ? 58080 : port });
  if (options.clients !== undefined) cluster.mqtt.demo.setTargetSize(options.clients);
  cluster.start(options.onWarmUp);
  const dialect = DIALECTS[options.dialect ?? 'spec'];
  const switches = resolveDeviations(switchesOf(dialect.name, options.deviations ?? []));
  return {
    cluster,
    envelope: options.envelope ?? dialect.envelope,
    appOptions: { ...(switches.length > 0 ? { deviations: switches } : {}), ...(options.api ? { api: options.api } : {}) },
    replayed: 0,
  };
}

/** A recorded run to replay: its writes, the virtual time it reached, the file's name for messages. */
export interface RecordedRun {
  writes: readonly JournaledWrite[];
  virtualNow: number;
  where: string;
  /** A write of an older file that held a user's password in clear, with the body to keep instead (state-replay.ts). */
  onSealed?: (index: number, body: string) => void;
}

/**
 * Applies the writes of `run` the model has not applied yet (from `model.replayed` on) and runs on to
 * `upTo` (default: the time the run reached). Throws a StateFileError when a write answers differently.
 */
export async function replayOnto(model: ServedModel, run: RecordedRun, steps: ReplaySteps = {}, upTo = run.virtualNow): Promise<void> {
  const { cluster, envelope } = model;
  model.replaying ??= new AdminApp(cluster, { envelope, clock: 'manual', ...model.appOptions });
  await replayWrites(cluster, model.replaying, envelope, run.writes, upTo, run.where, run.onSealed, { ...steps, from: model.replayed });
  model.replayed = run.writes.length;
}
