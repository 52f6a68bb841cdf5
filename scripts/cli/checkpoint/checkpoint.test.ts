import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApp } from '../../../sim/admin-api/admin-app.ts';
import { controlHttpAnswer } from '../../../sim/io/control/control-http.ts';
import { createServedModel, replayOnto, type ServedModelOptions } from '../../../sim/io/serve/served-model.ts';
import { journaled, journaledMqtt, type JournaledWrite } from '../../../sim/io/state/state-file.ts';
import { encodeJournal, type JournalRecord } from '../../../sim/io/state/state-journal-format.ts';
import { testStateOptions } from '../../../sim/io/state/testing/state-options.ts';
import { applyWireOp, encodeWireOp, wireAnswerText, type WireOp } from '../../../sim/model/cluster-ops/wire-ops.ts';
import { MQSIM_VERSION } from '../../../sim/version.ts';
import { codeSha256 } from './checkpoint-bundle.ts';
import { blobPath, checkpointProblem, readMeta, sha256, type CheckpointMeta } from './checkpoint-files.ts';
import { modelDigest, type ModelDigest } from './checkpoint-probe.ts';
import { buildCheckpoint } from './checkpoint-schedule.ts';

const STATE = testStateOptions({ seed: '7', nodes: 2 });
const MODEL: ServedModelOptions = {
  seed: STATE.seed,
  nodes: STATE.nodes,
  workload: STATE.workload,
  epochMs: STATE.epochMs,
  envelope: STATE.envelope,
  deviations: [],
  port: 0,
  admin: { username: 'admin', password: 'admin', tokenTtlHours: 8 },
};
const HOUR = 3_600_000;

const connect = (clientId: string, sessionExpiry: number): WireOp => ({
  op: 'connect',
  node: 1,
  tenant: 'default',
  clientId,
  username: '',
  ip: '127.0.0.1',
  port: 40_000,
  protocol: 5,
  cleanStart: false,
  sessionExpiry,
  keepAlive: 30,
  lastWill: { topic: `gone/${clientId}`, message: 'bye', qos: 1, retain: true, properties: null },
});

/**
 * A recorded run with writes of every family (admin API, control interface, MQTT listener ops) spread
 * over three virtual hours, as serve would journal them, with the virtual-time records between.
 */
async function recordRun(): Promise<JournalRecord[]> {
  const { cluster } = createServedModel(MODEL);
  const records: JournalRecord[] = [];
  const app = new AdminApp(cluster, {
    envelope: 'A',
    clock: 'manual',
    onModelWrite: (w) => void records.push({ write: journaled('api', w) }),
  });
  const api = (url: string, body: unknown) =>
    app.handle({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      peer: '127.0.0.1',
      nodeId: 1,
    });
  const control = (url: string, body: unknown): void => {
    const at = cluster.now();
    const answer = controlHttpAnswer(cluster, 'A', () => {}, { method: 'POST', url, body: JSON.stringify(body), peer: '127.0.0.1' })!;
    const write: JournaledWrite = journaled('control', {
      at,
      nodeId: 1,
      method: 'POST',
      url,
      body: JSON.stringify(body),
      status: answer.status,
      answer: answer.body,
    });
    records.push({ write });
  };
  const mqtt = (op: WireOp): void => {
    const answer = applyWireOp(cluster, op);
    records.push({ write: journaledMqtt(cluster.now(), 1, op.op, encodeWireOp(op), wireAnswerText(answer)) });
  };
  for (let step = 0; step < 12; step++) {
    cluster.engine.runUntil(cluster.now() + HOUR / 4);
    await api('/api/cluster/tenant/create', { tenant_name: `t${step}` });
    await api('/api/cluster/topic/create', { tenant: 'default', topic_name: `ck/${step}`, storage_type: 'EngineMemory' });
    await api('/api/cluster/user/create', { tenant: 'default', username: `u${step}`, password: `pw-${step}`, is_superuser: false });
    mqtt(connect(`c${step}`, 1800));
    if (step % 3 === 0) control('/_sim/nodes/crash', { node_id: 2 });
    if (step % 3 === 1) control('/_sim/nodes/restart', { node_id: 2 });
    if (step === 7) control('/_sim/clock/advance', { ms: HOUR / 2 });
    records.push({ virtual_now: cluster.now() });
  }
  return records;
}

/** The model a whole replay of `records` gives, as a digest. */
async function fullReplay(records: JournalRecord[]): Promise<ModelDigest> {
  const writes = records.flatMap((r) => ('write' in r ? [r.write] : []));
  const virtualNow = Math.max(...records.map((r) => ('virtual_now' in r ? r.virtual_now : 'write' in r ? r.write.at : 0)));
  const model = createServedModel(MODEL);
  await replayOnto(model, { writes, virtualNow, where: 'full' });
  return modelDigest(model);
}

describe('a checkpoint of serve --state (V8 startup snapshot of the model at a journal record)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mqsim-checkpoint-'));
  const state = join(dir, 'run.state');
  let records: JournalRecord[];
  let meta: CheckpointMeta;
  let prefixWrites: number;

  beforeAll(async () => {
    records = await recordRun();
    writeFileSync(state, encodeJournal(MQSIM_VERSION, STATE, records), { mode: 0o600 });
    // The checkpoint covers the records up to the middle of the run (a record boundary).
    const cut = Math.floor(records.length / 2);
    prefixWrites = records.slice(0, cut).filter((r) => 'write' in r).length;
    const prefixBytes = encodeJournal(MQSIM_VERSION, STATE, records.slice(0, cut)).length;
    meta = (await buildCheckpoint(state, prefixBytes, MODEL, () => {}))!;
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('restored and given the journal tail, equals a whole replay (trace hash, time, list answers)', async () => {
    expect(meta.writes).toBe(prefixWrites);
    expect(meta.writes).toBeGreaterThan(10);
    const families = new Set(records.flatMap((r) => ('write' in r ? [r.write.source] : [])));
    expect([...families].sort()).toEqual(['api', 'control', 'mqtt']);
    const run = spawnSync(process.execPath, ['--snapshot-blob', blobPath(state)], {
      env: { ...process.env, MQSIM_CHECKPOINT_VERIFY: state },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    const restored = JSON.parse(run.stdout) as ModelDigest & { fromWrite: number };
    expect(restored.fromWrite).toBe(prefixWrites);
    const full = await fullReplay(records);
    expect(full.now).toBeGreaterThan(meta.virtualNow);
    expect({ ...restored, fromWrite: undefined }).toEqual({ ...full, fromWrite: undefined });
    expect(full.lists['/api/cluster/user/list']).toContain('u11');
  }, 120_000);

  it('is refused when anything it was made from differs: journal prefix, Node, code, options, snapshot size', async () => {
    const want = { codeSha256, modelSha256: sha256(JSON.stringify(MODEL)) };
    expect(readMeta(state)).toEqual(meta);
    expect(await checkpointProblem(state, meta, want)).toBeUndefined();
    expect(await checkpointProblem(state, { ...meta, nodeVersion: 'v18.0.0' }, want)).toMatch(/Node v18/);
    expect(await checkpointProblem(state, { ...meta, mqsimVersion: '0.0.1' }, want)).toMatch(/mqsim 0\.0\.1/);
    expect(
      await checkpointProblem(state, { ...meta, codeInputs: [...meta.codeInputs, 'scripts/cli/checkpoint/not-there.ts'] }, want),
    ).toMatch(/code changed/);
    expect(await checkpointProblem(state, { ...meta, codeSha256: 'x' }, want)).toMatch(/code changed/);
    expect(await checkpointProblem(state, meta, { ...want, modelSha256: 'x' })).toMatch(/other options/);
    expect(await checkpointProblem(state, undefined, want)).toMatch(/description is unreadable/);
    const journal = readFileSync(state);
    const flipped = Buffer.from(journal);
    flipped[meta.journalBytes - 40] ^= 1;
    writeFileSync(state, flipped);
    expect(await checkpointProblem(state, meta, want)).toMatch(/no longer begins/);
    writeFileSync(state, journal.subarray(0, meta.journalBytes - 1));
    expect(await checkpointProblem(state, meta, want)).toMatch(/shorter/);
    writeFileSync(state, journal);
    writeFileSync(blobPath(state), readFileSync(blobPath(state)).subarray(1));
    expect(await checkpointProblem(state, meta, want)).toMatch(/snapshot file does not match/);
  });
});
