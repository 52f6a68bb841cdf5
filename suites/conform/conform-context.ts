import type { EndpointContract, Source } from '../../fixtures/contract/types.ts';
import type { Capability, MqttDriver, Target, TargetRequest } from '../targets/target.ts';
import { DataValidator } from './data-validator.ts';
import { readEnvelope, type Envelope } from './envelope.ts';
import { curlOf, ExchangeLog, responseRecord, type Exchange, type Purpose } from './exchange.ts';
import { declaredParams, requestParts } from './param-values.ts';
import type { CheckRecord, CheckStatus, Level } from './report-model.ts';

/** The outcome of one check, before it is recorded. */
export interface Verdict {
  status: CheckStatus;
  message: string;
  /** The request that shows the outcome (attached to failures with a curl command). */
  exchange?: Exchange;
  vacuous?: boolean;
}

export const pass = (message: string, exchange?: Exchange, vacuous = false): Verdict => ({ status: 'pass', message, ...(exchange ? { exchange } : {}), ...(vacuous ? { vacuous } : {}) });
export const fail = (message: string, exchange?: Exchange): Verdict => ({ status: 'fail', message, ...(exchange ? { exchange } : {}) });
export const skip = (message: string): Verdict => ({ status: 'skipped', message });

/** MUST/SHOULD for rules of the spec; INFO for shapes from the reference notes and project decisions. */
export function levelFor(base: Level, source: Source | undefined): Level {
  return source === undefined || source === 'spec' ? base : 'INFO';
}

/** Where an endpoint's request shape comes from: the spec's Index, or only a method and path. */
export function requestSource(e: EndpointContract): Source {
  return e.specTable === 'path-only' ? 'reference' : 'spec';
}

/** Names of everything a run creates, derived from the seed so a run can be repeated exactly. */
export interface FixtureNames {
  tenant: string;
  stem: string;
  topic: string;
  group: string;
}

export function fixtureNames(seed: number): FixtureNames {
  return { tenant: `conform-${seed}`, stem: `conform-${seed}`, topic: `conform/${seed}/topic`, group: `conform-${seed}-group` };
}

/**
 * What the run found out about the target before checking it; checks that need something missing are
 * skipped with the reason (never failed). Serialisable: it goes into the report.
 */
export interface DetectedCapabilities {
  /** Requests can come from a peer the spec does not exempt from tokens (127.0.0.2 on loopback targets). */
  remotePeer: Capability;
  /**
   * Auth checks from that peer can show something: false when the target answers it without a token
   * although the spec exempts only 127.0.0.1 and ::1 (then `exemptPeer` names it).
   */
  authChecks: Capability;
  exemptPeer?: string;
  /** The simulator's control interface (`--target sim` only). */
  control: Capability;
  /**
   * The target's MQTT TCP listener, and which form named it (`--mqtt`, config get
   * `mqtt_server.tcp_port` or `mqtt_runtime.server.tcp_port`, a node record's `extend.mqtt.mqtt_addr`).
   */
  mqttListener: Capability & { address?: string; source?: string };
  /** A way to act as an MQTT client: the listener, else the simulator's control. */
  mqttClient: Capability & { via?: string };
}

/** Facts learned during the run that later checks build on. */
export interface RunState {
  /** Topic the run may read: the fixture topic, or one found in the topic list. */
  topic?: { tenant: string; topic_name: string };
  shardName?: string;
  segmentSeq?: number;
  onlineNodeIds?: number[];
  /** Happy-path list answers by endpoint id, for the list laws. */
  lists: Map<string, Exchange>;
}

/**
 * Everything the checks share: the target, the exchange log, the data validator, fixture names and
 * the results recorded so far. A check is a function returning a Verdict; `check()` records it and
 * turns any exception into a failed check, so a harness error never ends the run.
 */
export class ConformContext {
  readonly log: ExchangeLog;
  readonly validator = new DataValidator();
  readonly names: FixtureNames;
  readonly state: RunState = { lists: new Map() };
  readonly results = new Map<string, CheckRecord[]>();
  readonly notes: string[] = [];
  /** Set by `detectCapabilities` before the first check. */
  capabilities?: DetectedCapabilities;
  /** How checks act as an MQTT client, when `capabilities.mqttClient` is available. */
  mqtt?: MqttDriver;
  /** `--mqtt HOST:PORT`: the target's MQTT listener as the user gave it, instead of detecting it. */
  mqttAddress?: { host: string; port: number };

  constructor(
    readonly target: Target,
    readonly seed: number,
    readonly contract: readonly EndpointContract[],
  ) {
    this.log = new ExchangeLog(target);
    this.names = fixtureNames(seed);
  }

  endpoint(method: string, path: string): EndpointContract | undefined {
    return this.contract.find((e) => e.method === method && e.path === path);
  }

  /** Sends a request to a contract endpoint with the given parameters (query for GET, body for POST). */
  call(e: EndpointContract, params: Record<string, unknown>, purpose: Purpose = 'check', extra: Partial<TargetRequest> = {}): Promise<Exchange> {
    return this.log.send({ method: e.method, path: e.path, ...requestParts(e, params), ...extra }, purpose, e.id);
  }

  send(req: TargetRequest, purpose: Purpose = 'check', endpointId?: string, redactAuthorization = false): Promise<Exchange> {
    return this.log.send(req, purpose, endpointId, redactAuthorization);
  }

  /** Runs one check and records its outcome on the endpoint; exceptions become failed checks. */
  async check(e: EndpointContract, id: string, level: Level, fn: () => Promise<Verdict> | Verdict): Promise<CheckRecord> {
    let verdict: Verdict;
    try {
      verdict = await fn();
    } catch (err) {
      verdict = fail(`harness error: ${(err as Error)?.stack?.split('\n').slice(0, 3).join(' | ') ?? String(err)}`);
    }
    const record: CheckRecord = { id, level, status: verdict.status, message: verdict.message };
    if (verdict.vacuous) record.vacuous = true;
    if (verdict.exchange && verdict.status === 'fail') {
      record.request = verdict.exchange.record;
      record.response = responseRecord(verdict.exchange);
      record.curl = curlOf(this.target.baseUrl, verdict.exchange, this.target.capabilities.remoteVia);
    }
    const list = this.results.get(e.id) ?? [];
    list.push(record);
    this.results.set(e.id, list);
    return record;
  }

  /** The parameters of `e` that are required. */
  requiredParams(e: EndpointContract) {
    return declaredParams(e).filter((p) => p.required);
  }
}

/** The envelope of an exchange, or undefined when it has none (transport error, not JSON). */
export function envelopeOf(ex: Exchange): Envelope | undefined {
  if (!ex.response) return undefined;
  const read = readEnvelope(ex.response.json, ex.response.text);
  return read.ok ? read.envelope : undefined;
}

/** True when the exchange is a success: HTTP 200 and envelope code 0. */
export function succeeded(ex: Exchange): boolean {
  const env = envelopeOf(ex);
  return ex.response?.status === 200 && env?.code === 0;
}

/** One line describing what came back, for check messages. */
export function describeAnswer(ex: Exchange): string {
  if (!ex.response) return `no answer (${ex.error})`;
  const env = envelopeOf(ex);
  const location = ex.response.status >= 300 && ex.response.status < 400 ? ex.response.headers.location : undefined;
  // The harness never follows redirects (a loop must not hang the run): say where it pointed.
  if (location !== undefined) return `HTTP ${ex.response.status} redirect to ${JSON.stringify(location.slice(0, 200))} (not followed; the spec defines no redirects)`;
  if (!env) {
    const t = ex.response.text;
    return `HTTP ${ex.response.status}, body ${JSON.stringify(t.length > 100 ? `${t.slice(0, 100)}…` : t)}`;
  }
  const text = env.text && env.code !== 0 ? `, "${env.text.length > 160 ? `${env.text.slice(0, 160)}…` : env.text}"` : '';
  return `HTTP ${ex.response.status}, code ${env.code}${text}`;
}

/** A refusal as a parameter error: HTTP 400 or envelope code 400. */
export function refusedAsInvalid(ex: Exchange): boolean {
  const env = envelopeOf(ex);
  return ex.response?.status === 400 || env?.code === 400;
}
