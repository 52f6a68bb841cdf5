import { assertionById, type SpecAssertion } from '../../contract/assertions/index.ts';
import { RESOURCE_FAMILIES } from '../../contract/index.ts';
import type { EndpointContract, ResourceFamilyContract } from '../../contract/core/types.ts';
import type { MqttDriver, Target, TargetRequest } from '../targets/target.ts';
import type { DetectedCapabilities } from './detected-capabilities.ts';
import { DataValidator } from './data-validator.ts';
import { readEnvelope, type Envelope } from './envelope.ts';
import { curlOf, ExchangeLog, responseRecord, type Exchange, type Purpose } from './exchange.ts';
import { declaredParams } from '../../contract/minimal-params.ts';
import { requestParts } from './param-values.ts';
import type { CheckRecord, CheckRule, CheckStatus, FailureCause } from './report-model.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { RunOrder } from './run-order.ts';

export type { DetectedCapabilities } from './detected-capabilities.ts';

/**
 * What a check may do with the run's created resources: the one kept by the runner
 * (`CreatedResources` in resource-families.ts, which needs this context, hence the narrow view).
 */
export interface RunResources {
  createEndpoint(f: ResourceFamilyContract): EndpointContract | undefined;
  create(f: ResourceFamilyContract, fields: Record<string, unknown>, purpose?: 'check' | 'fixture'): Promise<Exchange | undefined>;
}

/** The outcome of one check, before it is recorded. */
export interface Verdict {
  status: CheckStatus;
  message: string;
  /** The request that shows the outcome (attached to failures with a curl command). */
  exchange?: Exchange;
  /**
   * A more precise assertion than the one the check was declared with (the field row a schema error
   * is in), of the same level; and further assertions of that level the same evidence tested.
   */
  assertion?: string;
  also?: readonly string[];
  /** A failure's rule, when finer or wider than the assertion (a URL scheme across connector types): findings group by it. */
  rule?: CheckRule;
  /**
   * Earlier checks this one's evidence rests on (the set a read-back reads, the create a list shows).
   * When one of them failed, this check decides nothing by itself: a pass is recorded as inconclusive,
   * a failure as that check's consequence (folded under its finding).
   */
  dependsOn?: readonly CheckRecord[];
}

/**
 * A pass; with `inconclusive` true the check saw nothing that could have failed a wrong server (one
 * record where a sort needs two, a value every record shares): it is recorded as inconclusive, never
 * as a pass.
 */
export const pass = (message: string, exchange?: Exchange, inconclusive = false): Verdict => ({
  status: inconclusive ? 'inconclusive' : 'pass',
  message,
  ...(exchange ? { exchange } : {}),
});
export const fail = (message: string, exchange?: Exchange): Verdict => ({ status: 'fail', message, ...(exchange ? { exchange } : {}) });
export const skip = (message: string): Verdict => ({ status: 'skipped', message });
export const inconclusive = (message: string, exchange?: Exchange): Verdict => ({
  status: 'inconclusive',
  message,
  ...(exchange ? { exchange } : {}),
});

/**
 * Why a failure's answer explains it beyond its own rule: a 5xx (other than a status the endpoint
 * may answer, like the readiness probe's 503), no answer at all, or a 2xx of an envelope endpoint whose
 * body is not JSON. Such failures on one endpoint are one finding.
 */
export function failureCause(e: EndpointContract | undefined, ex: Exchange | undefined): FailureCause | undefined {
  if (!ex) return undefined;
  if (!ex.response) return 'transport';
  const status = ex.response.status;
  // The route is not there: 404 for any method on the endpoint's path, or 405 for its own method.
  // (An envelope with a 404 is the route answering "no such resource", not a missing route.)
  if (
    e &&
    ex.sent.path === e.path &&
    (status === 404 || (status === 405 && ex.sent.method === e.method)) &&
    !readEnvelope(ex.response.json, ex.response.text).ok
  )
    return 'not-found';
  if (status >= 500 && !(e?.response.otherStatuses ?? []).includes(status)) return 'server-error';
  if (e?.response.kind === 'envelope' && status >= 200 && status < 300 && ex.response.json === undefined) return 'non-json';
  return undefined;
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

/** Facts learned during the run that later checks build on. */
export interface RunState {
  /** Topic the run may read: the fixture topic, or one found in the topic list. */
  topic?: { tenant: string; topic_name: string };
  /**
   * Topic the message checks write to, created when they first need it: the fixture topic may have
   * lost its only replica by then (the node-leave scenario removes a node, as the spec's rules allow).
   */
  messageTopic?: { tenant: string; topic_name: string };
  shardName?: string;
  segmentSeq?: number;
  onlineNodeIds?: number[];
  /** Happy-path list answers by endpoint id, for the list laws. */
  lists: Map<string, Exchange>;
  /** The set → get round trip showed accepted config sets take effect (so "unchanged" after a refused one means something). */
  configSetApplies?: boolean;
  /** The target refused to remove an online node (so its success for an unknown one is a discrimination, not a blanket yes). */
  refusesOnlineNodeLeave?: boolean;
  /** Delete endpoint id → whether the instance its valid request deletes was listed just before. */
  listedBeforeDelete: Map<string, boolean | undefined>;
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
  readonly state: RunState = { lists: new Map(), listedBeforeDelete: new Map() };
  readonly results = new Map<string, CheckRecord[]>();
  /** The endpoint each recorded check belongs to (a later check may rest on a check of another endpoint). */
  private readonly endpointOf = new WeakMap<CheckRecord, string>();
  /** The sequential order of what the run makes, kept when endpoints are checked at once. */
  readonly order = new RunOrder();
  private readonly mainNotes: string[] = [];
  /** Set by `detectCapabilities` before the first check. */
  capabilities?: DetectedCapabilities;
  /** How checks act as an MQTT client, when `capabilities.mqttClient` is available. */
  mqtt?: MqttDriver;
  /** What the run created (set by the runner), so a check can make an instance it needs and have it cleaned up. */
  resources?: RunResources;
  /** `--mqtt HOST:PORT`: the target's MQTT listener as the user gave it, instead of detecting it. */
  mqttAddress?: { host: string; port: number };
  /** `--mqtt none`: the target has no MQTT listener; nothing is probed. */
  mqttListenerNone?: boolean;
  /** The endpoint whose valid request, answered in form A, records why envelope form B goes untested: the first envelope endpoint of the selection. */
  formBNoteAt?: string;
  /** The endpoint the loopback-exemption probe asks (undefined: none answered the run), chosen once: concurrent askers share the choice. */
  exemptionProbe?: Promise<EndpointContract | undefined>;
  /** Set by `withUnmetBase` while checks run whose base request is not known to be accepted: why not (per async call chain). */
  private readonly unmetBaseScope = new AsyncLocalStorage<string | undefined>();

  constructor(
    readonly target: Target,
    readonly seed: number,
    /** Endpoints the run may call (the whole API, or the slice a caller gave). */
    readonly contract: readonly EndpointContract[],
    /** The API's resource families (fixtures, family checks). */
    readonly families: readonly ResourceFamilyContract[] = RESOURCE_FAMILIES,
  ) {
    this.log = new ExchangeLog(target, this.order);
    this.names = fixtureNames(seed);
  }

  /** The run's notes; inside a slot of the run order, that slot's own until its phase ends (then in slot order). */
  get notes(): string[] {
    return this.order.notes(this.mainNotes);
  }

  /** Ends a phase of endpoints checked at once: notes, exchanges and each endpoint's checks back in sequential order. */
  endConcurrentPhase(): void {
    this.order.endPhase(this.mainNotes);
    this.order.sort(this.log.exchanges);
    for (const list of this.results.values()) this.order.sort(list);
  }

  private get unmetBase(): string | undefined {
    return this.unmetBaseScope.getStore();
  }

  endpoint(method: string, path: string): EndpointContract | undefined {
    return this.contract.find((e) => e.method === method && e.path === path);
  }

  /** Sends a request to a contract endpoint with the given parameters (query for GET, body for POST). */
  call(
    e: EndpointContract,
    params: Record<string, unknown>,
    purpose: Purpose = 'check',
    extra: Partial<TargetRequest> = {},
  ): Promise<Exchange> {
    return this.log.send({ method: e.method, path: e.path, ...requestParts(e, params), ...extra }, purpose, e.id);
  }

  send(req: TargetRequest, purpose: Purpose = 'check', endpointId?: string, redactAuthorization = false): Promise<Exchange> {
    return this.log.send(req, purpose, endpointId, redactAuthorization);
  }

  /**
   * Runs `fn` with the checks it records standing on a base request that is not known to be accepted
   * (`unmet` says why: the fixture it varies could not be created, or the valid request was refused).
   * A check that varies one parameter of a refused request learns nothing from the answer: refused
   * again, the refusal may be the base's; accepted or refused for the "wrong" reason, the base was
   * never shown acceptable. So such checks are inconclusive with the reason, never pass or fail — except
   * what the answer shows by itself: a failure it explains (a 5xx, no answer, a non-JSON success), which
   * no base excuses, and a pass on the exchange's own success (a value accepted is accepted, whatever the
   * base). A server cannot hide behind this: refusing the base request fails the valid-request check.
   */
  withUnmetBase<T>(unmet: string | undefined, fn: () => Promise<T>): Promise<T> {
    return this.unmetBaseScope.run(unmet ?? this.unmetBase, fn);
  }

  /** The verdict of a check whose base request is unmet: inconclusive unless its failure stands on its own. */
  private onUnmetBase(e: EndpointContract, verdict: Verdict): Verdict {
    if (this.unmetBase === undefined || (verdict.status !== 'pass' && verdict.status !== 'fail')) return verdict;
    if (verdict.status === 'pass' && verdict.exchange && succeeded(verdict.exchange)) return verdict;
    if (verdict.status === 'fail' && verdict.exchange) {
      const answered = this.endpoint(verdict.exchange.sent.method, verdict.exchange.sent.path) ?? e;
      if (failureCause(answered, verdict.exchange)) return verdict;
    }
    return {
      ...inconclusive(`not decided: ${this.unmetBase}, so this answer shows nothing about the rule (it saw: ${verdict.message})`),
      ...(verdict.assertion ? { assertion: verdict.assertion } : {}),
    };
  }

  /**
   * Runs one check of the spec assertion `assertion` (its level is the check's level) and records the
   * outcome on the endpoint. An exception inside the check is a bug of the harness, not a finding
   * about the target: the check is recorded as skipped with the error, and the run's notes say so.
   */
  async check(e: EndpointContract, id: string, assertion: string, fn: () => Promise<Verdict> | Verdict): Promise<CheckRecord> {
    const cited: SpecAssertion = assertionById(assertion);
    let verdict: Verdict;
    try {
      verdict = await fn();
    } catch (err) {
      const where = (err as Error)?.stack?.split('\n').slice(0, 3).join(' | ') ?? String(err);
      this.notes.push(`harness error in check ${id} of ${e.method} ${e.path}: ${where}`);
      verdict = skip(`not decided: the harness failed (${where})`);
    }
    verdict = this.onUnmetBase(e, verdict);
    const precise = verdict.assertion ? assertionById(verdict.assertion) : cited;
    if (precise.level !== cited.level)
      throw new Error(`check ${id}: assertion ${precise.id} (${precise.level}) is not of the level of ${cited.id} (${cited.level})`);
    const also = (verdict.also ?? []).filter((a) => a !== precise.id && assertionById(a).level === precise.level);
    const failedDependency = (verdict.dependsOn ?? []).find((d) => d.status === 'fail');
    if (failedDependency && verdict.status === 'pass')
      verdict = {
        ...verdict,
        status: 'inconclusive',
        message: `${verdict.message} (not evidence: it rests on ${failedDependency.id}, which failed)`,
      };
    const record: CheckRecord = {
      id,
      assertion: precise.id,
      level: precise.level,
      status: verdict.status,
      message: verdict.message,
      ...(also.length ? { also } : {}),
    };
    if (verdict.status === 'fail') {
      if (verdict.rule) record.rule = verdict.rule;
      if (failedDependency) record.consequenceOf = { endpoint: this.endpointOf.get(failedDependency) ?? e.id, check: failedDependency.id };
    }
    if (verdict.exchange && verdict.status === 'fail') {
      const answered = this.endpoint(verdict.exchange.sent.method, verdict.exchange.sent.path);
      const cause = failureCause(answered ?? e, verdict.exchange);
      if (cause) {
        record.cause = cause;
        record.causeEndpoint = answered?.id ?? e.id;
      }
      record.request = verdict.exchange.record;
      record.response = responseRecord(verdict.exchange);
      const caps = this.target.capabilities;
      record.curl = curlOf(this.target.baseUrl, verdict.exchange, caps.remoteVia, caps.loopbackPeer);
    }
    const list = this.results.get(e.id) ?? [];
    list.push(record);
    this.results.set(e.id, list);
    this.endpointOf.set(record, e.id);
    this.order.mark(record);
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
  if (location !== undefined)
    return `HTTP ${ex.response.status} redirect to ${JSON.stringify(location.slice(0, 200))} (not followed; the spec defines no redirects)`;
  if (!env) {
    const t = ex.response.text;
    return `HTTP ${ex.response.status}, body ${JSON.stringify(t.length > 100 ? `${t.slice(0, 100)}…` : t)}`;
  }
  const text = env.text && env.code !== 0 ? `, "${env.text.length > 160 ? `${env.text.slice(0, 160)}…` : env.text}"` : '';
  return `HTTP ${ex.response.status}, code ${env.code}${text}`;
}

/**
 * The request was not accepted: an envelope with a non-zero code (code 0 means success, whatever the
 * HTTP status), or a 4xx answer without an envelope (whether the answer should carry one is the
 * envelope checks' business). A 5xx is not a refusal but a server error.
 */
export function refused(ex: Exchange): boolean {
  if (!ex.response) return false;
  const env = envelopeOf(ex);
  if (env) return env.code !== 0;
  return ex.response.status >= 400 && ex.response.status < 500;
}

/**
 * A refusal as a parameter error (spec, Errors: "| 400 | request parameter error |"): refused, with
 * envelope code 400 or HTTP status 400 (or 422, the status of an unprocessable body).
 */
export function refusedAsInvalid(ex: Exchange): boolean {
  if (!refused(ex)) return false;
  const env = envelopeOf(ex);
  return ex.response!.status === 400 || ex.response!.status === 422 || env?.code === 400;
}
