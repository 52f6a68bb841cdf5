/**
 * The crash torture of `mqsim serve --state FILE`, through the real CLI: eight writers (crash-writers.ts)
 * write concurrently while the server is killed with SIGKILL at seeded random moments and restarted
 * on the same file; after each restart every write is judged (crash-ledger.ts). Used by the bounded
 * test (serve-state-crash.test.ts) and the soak (`npm run soak:state-crash`).
 */
import { SeededRandom } from '../../../sim/model/engine/seeded-random.ts';
import { startServe, type ServedProcess } from './serve-process.ts';
import { NotAcknowledged, ServerApi, UnexpectedAnswer } from './crash-http.ts';
import { ServerView, LOG_TOPIC, TENANT } from './crash-steps.ts';
import { crashWriters, type Writer, type WriterContext } from './crash-writers.ts';
import { MqttWriterState } from './crash-mqtt-steps.ts';
import { CrashLedger, type CrashTally } from './crash-ledger.ts';
import { pickKillMoment, type KillMode } from './crash-kill-moments.ts';
import { killDuringStart } from './crash-start-kill.ts';
import { readMeta } from '../checkpoint/checkpoint-files.ts';

export interface CrashTortureOptions {
  seed: string;
  kills: number;
  /** The state file (created by the first start; must not exist). */
  stateFile: string;
  /** A directory for the paths the file connectors name. */
  dir: string;
  /** HTTP and MQTT port of node 1 (3 nodes: each uses three ports from there); 0: ephemeral ports. */
  port: number;
  mqttPort: number;
  /** Bounds of the time writers run before a kill is armed, in ms. */
  lifeMs: [number, number];
  onProgress?: (line: string) => void;
  /**
   * Asks the server to checkpoint its state file (serve: SIGUSR2), resolving once the request is
   * sent. Given, the kill moments include "during a checkpoint"; see crash-kill-moments.ts.
   */
  checkpoint?: (life: ServedProcess) => Promise<void>;
  /**
   * With `checkpoint`: every Nth life first asks for a checkpoint and waits until it is made (at most
   * 60 s), so the next start is restored from it and that life's kill lands right after a restart
   * from a checkpoint.
   */
  completeCheckpointEvery?: number;
  /** Chance (0-1) that a restart is itself killed, 0-3 s after it was spawned, before the real one (default 0). */
  startKills?: number;
}

export interface CrashTortureResult extends CrashTally {
  seed: string;
  kills: number;
  /** Restarts killed while starting (see startKills). */
  startKills: number;
  modes: Record<string, number>;
  /** Starts that failed (a state file the server wrote itself refused, or any other exit). */
  refusedStarts: string[];
  /** Seconds each restart took to resume (from the server's own banner). */
  resumeSeconds: number[];
  /** Starts restored from a checkpoint (the banner says so). */
  checkpointStarts: number;
  /** Checkpoints asked for and waited for that were made. */
  checkpointsMade: number;
}

const SERVE_ARGS = ['--workload', 'none', '--control'];

export async function runCrashTorture(o: CrashTortureOptions): Promise<CrashTortureResult> {
  const rng = new SeededRandom(o.seed);
  // Its own stream: with or without killed starts, a seed gives the same moments to the lives.
  const startRng = rng.fork('start-kills');
  const ledger = new CrashLedger();
  const mqtt = new MqttWriterState();
  const writers = crashWriters(mqtt);
  const next = new Map<string, number>();
  const result: CrashTortureResult = {
    seed: o.seed,
    kills: 0,
    startKills: 0,
    modes: {},
    refusedStarts: [],
    resumeSeconds: [],
    checkpointStarts: 0,
    checkpointsMade: 0,
    ...ledger.tally,
  };
  const args = ['--state', o.stateFile, '--port', String(o.port), '--mqtt-port', String(o.mqttPort), ...SERVE_ARGS];
  await prepare(args);
  for (let life = 1; life <= o.kills + 1; life++) {
    if (life > 1 && (o.startKills ?? 0) > 0 && startRng.chance(o.startKills!)) {
      const delay = startRng.int(0, 3_000);
      const killed = await killDuringStart(args, delay);
      if (killed.exitedFirst) result.refusedStarts.push(`start ${life} (to be killed at +${delay} ms): ${killed.exitedFirst}`);
      result.startKills++;
      o.onProgress?.(`  start ${life} killed at +${delay} ms (${killed.ready ? 'serving' : 'before it served'})`);
    }
    let served: ServedProcess;
    try {
      served = await startServe(args);
    } catch (e) {
      result.refusedStarts.push(`start ${life}: ${(e as Error).message}`);
      break;
    }
    const api = new ServerApi(nodeUrls(served));
    try {
      const resumed = /resumed (\d+) write\(s\).* in ([\d.]+) s/.exec(served.stderr());
      if (resumed) result.resumeSeconds.push(Number(resumed[2]));
      if (/from the checkpoint at write/.test(served.stderr())) result.checkpointStarts++;
      const lost = await ledger.check(new ServerView(api), life);
      if (life > o.kills) {
        o.onProgress?.(`final start: ${resumed?.[1] ?? '?'} write(s) resumed; lost now ${lost}`);
        served.child.kill('SIGTERM');
        await served.exit;
        break;
      }
      if (o.checkpoint && o.completeCheckpointEvery && life % o.completeCheckpointEvery === 1 % o.completeCheckpointEvery) {
        const made = await completeCheckpoint(served, o);
        if (made) result.checkpointsMade++;
        o.onProgress?.(`  life ${life}: checkpoint ${made ? 'made' : 'NOT made within 60 s'}`);
      }
      const mode = pickKillMode(rng, o);
      result.modes[mode] = (result.modes[mode] ?? 0) + 1;
      const ctx: WriterContext = { api, mqttPort: served.mqttPort!, dir: o.dir };
      const before = ledger.tally.acknowledged;
      const at = await runLife({ served, ctx, writers, ledger, life, mqtt, mode, next, rng, o });
      result.kills++;
      o.onProgress?.(
        `kill ${life}/${o.kills}: ${mode} at +${at} ms; resumed ${resumed?.[1] ?? 0} write(s) in ${resumed?.[2] ?? '-'} s, lost at this start ${lost}; ${ledger.tally.acknowledged - before} acknowledged in this life`,
      );
    } finally {
      await api.close();
    }
  }
  return { ...result, ...ledger.tally };
}

/** Asks for a checkpoint and waits until its description names more of the journal than before. */
async function completeCheckpoint(served: ServedProcess, o: CrashTortureOptions): Promise<boolean> {
  const before = readMeta(o.stateFile)?.journalBytes ?? 0;
  await o.checkpoint!(served);
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 100));
    if ((readMeta(o.stateFile)?.journalBytes ?? 0) > before) return true;
  }
  return false;
}

/** Every node's URL, from serve's banner (with port 0 each node has its own ephemeral port). */
function nodeUrls(served: ServedProcess): string[] {
  const urls = [...served.stderr().matchAll(/^ {2}node \d+: (http:\S+)$/gm)].map((m) => m[1]);
  return urls.length > 0 ? urls : [served.url];
}

/** The first life: the tenant and topic every writer uses, stopped gracefully so they are saved. */
async function prepare(args: string[]): Promise<void> {
  const served = await startServe(args);
  const api = new ServerApi(nodeUrls(served));
  try {
    await api.write(1, '/api/cluster/tenant/create', { tenant_name: TENANT });
    await api.write(1, '/api/cluster/topic/create', { tenant: TENANT, topic_name: LOG_TOPIC, storage_type: 'EngineMemory' });
  } finally {
    await api.close();
    served.child.kill('SIGTERM');
  }
  const code = await served.exit;
  if (code !== 0) throw new Error(`the first serve exited with ${code} at SIGTERM: ${served.stderr()}`);
}

function pickKillMode(rng: SeededRandom, o: CrashTortureOptions): KillMode {
  const modes: KillMode[] = ['timed', 'after-answer', 'mid-burst'];
  if (o.checkpoint) modes.push('checkpoint');
  return rng.pick(modes);
}

/** Runs the writers until the kill planned for this life; returns when it was (ms after the start of writing). */
async function runLife(a: {
  served: ServedProcess;
  ctx: WriterContext;
  writers: Writer[];
  ledger: CrashLedger;
  life: number;
  mqtt: MqttWriterState;
  mode: KillMode;
  /** Each writer's next step index, carried from life to life. */
  next: Map<string, number>;
  rng: SeededRandom;
  o: CrashTortureOptions;
}): Promise<number> {
  const { served, ledger, life } = a;
  const gate = new Gate(a.writers.length);
  let killed = false;
  let onAnswer: (() => void) | undefined;
  const kill = (): void => {
    if (killed) return;
    killed = true;
    served.child.kill('SIGKILL');
  };
  const started = Date.now();
  const loops = a.writers.map(async (w) => {
    let i = Math.ceil((a.next.get(w.name) ?? 0) / w.group) * w.group;
    while (!killed) {
      await gate.pass();
      if (killed) break;
      const step = w.step(i++, a.ctx);
      const settle = ledger.begin(w.name, life, step);
      try {
        settle.acked(await step.run());
        const f = onAnswer;
        onAnswer = undefined;
        f?.();
      } catch (e) {
        if (e instanceof UnexpectedAnswer) settle.failed(e.message);
        else if (e instanceof NotAcknowledged) settle.unanswered();
        else settle.failed(String((e as Error)?.stack ?? e));
      }
    }
    a.next.set(w.name, i);
  });
  await pickKillMoment(a.mode, a.rng, a.o, {
    kill,
    gate,
    onNextAnswer: (f) => (onAnswer = f),
    checkpoint: () => a.o.checkpoint!(served),
  });
  kill();
  const at = Date.now() - started;
  gate.open();
  await served.exit;
  a.mqtt.kill();
  await Promise.all(loops);
  return at;
}

/** Lets the writers through, or holds them all to release them at once (a burst). */
export class Gate {
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;
  private waiting = 0;
  private onAllWaiting: (() => void) | undefined;

  constructor(private readonly writers: number) {}

  async pass(): Promise<void> {
    if (!this.held) return;
    this.waiting++;
    if (this.waiting === this.writers) this.onAllWaiting?.();
    await this.held;
  }

  /** Holds the writers; resolves when all wait (or after `maxMs`, should one be stuck). */
  hold(maxMs: number): Promise<void> {
    this.waiting = 0;
    this.held = new Promise((r) => (this.release = r));
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, maxMs);
      this.onAllWaiting = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  open(): void {
    this.held = undefined;
    this.onAllWaiting = undefined;
    this.release?.();
  }
}
