import type { Command } from 'commander';
import { serveSecrets, type ServeSecrets } from './serve-secrets.ts';
import type { EnvelopeForm } from '../../sim/admin-api/envelope.ts';
import { UsageError } from './usage-error.ts';
import { loadState, type LoadedState } from '../../sim/io/state/state-load.ts';
import { StateFileError, type ServeState, type ServeStateOptions } from '../../sim/io/state/state-file.ts';
import { DIALECTS } from '../../sim/switches/dialects.ts';
import { StaticUi, UiDirError } from '../../sim/io/http/static-ui.ts';
import { parseEpoch, RECORDED, type ServeOptions } from './serve-options.ts';
import { StateLock } from './state-lock.ts';

/**
 * A start of `mqsim serve`, checked and resolved: the options (a state file's recorded ones applied),
 * the secrets, and what the state file records. Plain data, so that a process restored from a
 * checkpoint can be handed it as JSON.
 */
export interface PreparedServe {
  opts: ServeOptions;
  secrets: ServeSecrets;
  epochMs: number;
  envelope: EnvelopeForm;
  /** `--ui`, resolved. */
  ui?: string;
  /** What a new state file records, and what a resumed one is checked against. */
  stateOptions: ServeStateOptions;
}

/** Every check of the options that needs no state file. */
function checkOptions(cmd: Command, opts: ServeOptions): void {
  if (opts.dialect === 'robustmq' && opts.envelope === 'A') {
    throw new UsageError(
      '--envelope A contradicts --dialect robustmq: the real server answers in form B (its switch failure-code-100 rewrites every answer); drop --envelope',
    );
  }
  if (cmd.getOptionValueSource('mqttLogin') === 'cli' && opts.mqttPort === undefined) {
    throw new UsageError(
      '--mqtt-login applies to the MQTT listener: give --mqtt-port too (e.g. --mqtt-port 1884, or 0 for ephemeral ports)',
    );
  }
  if (opts.state && (opts.nats || opts.liveConnectors)) {
    throw new UsageError(
      `--state cannot be combined with ${opts.nats ? '--nats' : '--live-connectors'}: what arrives from outside the simulator cannot be replayed on restart`,
    );
  }
}

/**
 * A state file resumes the run it recorded, so its options win; one given on the command line that
 * says otherwise is a mistake (exit 2), not something to apply silently. `--epoch` is checked too.
 */
function checkAgainstRecorded(cmd: Command, opts: ServeOptions, recorded: ServeState, path: string): void {
  const given = (key: string): boolean => cmd.getOptionValueSource(key) === 'cli';
  for (const { key, flag, recorded: read } of RECORDED) {
    if (!given(key)) continue;
    const mine = JSON.stringify(opts[key]);
    const theirs = JSON.stringify(read(recorded.options));
    if (mine !== theirs)
      throw new UsageError(
        `${flag} ${mine} differs from ${theirs} recorded in the state file ${path}; a state file resumes the run it recorded: drop ${flag} or use another --state file`,
      );
  }
  if (opts.epoch !== undefined && parseEpoch(opts.epoch) !== recorded.options.epochMs) {
    throw new UsageError(
      `--epoch ${opts.epoch} differs from ${new Date(recorded.options.epochMs).toISOString()} recorded in the state file ${path}; drop --epoch or use another --state file`,
    );
  }
}

/** The state file, read once its lock is held; undefined without --state or when it does not exist yet. */
function readState(path: string | undefined): LoadedState | undefined {
  try {
    return path ? loadState(path) : undefined;
  } catch (e) {
    if (e instanceof StateFileError) throw new UsageError(e.message);
    throw e;
  }
}

/** The recorded run's options replace the command line's (checked against them first). */
function applyRecorded(cmd: Command, opts: ServeOptions, recorded: ServeState, path: string): void {
  checkAgainstRecorded(cmd, opts, recorded, path);
  const o = recorded.options;
  Object.assign(opts, {
    seed: o.seed,
    nodes: o.nodes,
    workload: o.workload,
    envelope: o.envelope,
    dialect: o.dialect ?? 'spec',
    clients: o.clients,
    deviation: o.deviations,
    adminUser: o.admin.username,
    tokenTtlHours: o.admin.tokenTtlHours,
  });
}

function resolveUi(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  try {
    return new StaticUi(dir).root;
  } catch (e) {
    if (e instanceof UiDirError) throw new UsageError(e.message);
    throw e;
  }
}

/** Checks and resolves a start; with --state, takes the file's lock before reading it. */
export async function prepareServe(
  cmd: Command,
  opts: ServeOptions,
): Promise<{ prepared: PreparedServe; loaded?: LoadedState; lock?: StateLock }> {
  checkOptions(cmd, opts);
  const lock = opts.state ? await StateLock.take(opts.state) : undefined;
  const loaded = readState(opts.state);
  const recorded = loaded?.state;
  if (recorded && opts.state) applyRecorded(cmd, opts, recorded, opts.state);
  const secrets = await serveSecrets(opts, recorded?.options.admin);
  // After a state file gave its options: the node count may come from it.
  if (opts.mqttPort !== undefined && opts.mqttPort > 0 && opts.mqttPort + opts.nodes - 1 > 65_535) {
    throw new UsageError(
      `--mqtt-port ${opts.mqttPort} leaves no port for node ${opts.nodes} (node K listens on port + K - 1, at most 65535); pick a lower one, or 0 for ephemeral ports`,
    );
  }
  const epochMs = recorded ? recorded.options.epochMs : parseEpoch(opts.epoch);
  const envelope = opts.envelope ?? DIALECTS[opts.dialect].envelope;
  const ui = resolveUi(opts.ui);
  const stateOptions: ServeStateOptions = {
    seed: opts.seed,
    nodes: opts.nodes,
    workload: opts.workload,
    epochMs,
    envelope,
    ...(opts.dialect !== 'spec' ? { dialect: opts.dialect } : {}),
    ...(opts.clients !== undefined ? { clients: opts.clients } : {}),
    deviations: opts.deviation,
    admin: { username: opts.adminUser, passwordHash: secrets.passwordHash, tokenTtlHours: opts.tokenTtlHours },
  };
  return {
    prepared: { opts, secrets, epochMs, envelope, ...(ui ? { ui } : {}), stateOptions },
    ...(loaded ? { loaded } : {}),
    ...(lock ? { lock } : {}),
  };
}
