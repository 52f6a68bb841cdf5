import { TransportError, type Target, type TargetRequest, type TargetResponse } from '../targets/target.ts';

/**
 * Before any check: is something answering at the target, is it this API, and do the given
 * credentials open it? A run against a stopped server, a plain file server or with a wrong password
 * would otherwise report hundreds of failed checks that all say the same thing; these three cases
 * end the run instead, with one sentence that says what is wrong and what to do.
 */

export type SetupProblem = 'down' | 'not-the-api' | 'login-refused';

/** The run cannot start: the message is one sentence naming the problem and the fix. */
export class SetupError extends Error {
  constructor(
    message: string,
    readonly problem: SetupProblem,
  ) {
    super(message);
    this.name = 'SetupError';
  }
}

export interface PreflightResult {
  /** Login trouble that is not a refusal (e.g. HTTP 500, no token): the run goes on and says so. */
  notes: string[];
  /** The probe that showed the API's envelope, for messages. */
  shownBy: string;
}

/**
 * Harmless reads the spec or the real server answer with an envelope (each may be missing on a given
 * server: `/api/status` is gone from the real one, `/api/info` is not in the spec, an old layout has
 * neither). One envelope anywhere is enough.
 */
const PROBES: readonly TargetRequest[] = [
  { method: 'GET', path: '/health/ready', auth: 'none' },
  { method: 'GET', path: '/api/info' },
  { method: 'GET', path: '/api/status' },
  { method: 'GET', path: '/api/cluster/tenant/list', query: { limit: 1 } },
];

const LOGIN_PATH = '/api/v1/login';
/** Credentials no server has: the answer (401 with an envelope) shows the API without logging in. */
const NOBODY = { username: 'mqsim-preflight-nobody', password: 'mqsim-preflight-not-a-password' };

interface Probe {
  label: string;
  response?: TargetResponse;
  error?: string;
}

/**
 * Does the answer show the spec's envelope: a JSON object with a numeric `code` and a `data` key?
 * Deliberately lenient: form A or B, any code (100, 401…), any HTTP status and any content type
 * (the real server sends its envelopes as text/plain).
 */
function showsEnvelope(res: TargetResponse): boolean {
  let body = res.json;
  if (body === undefined) {
    try {
      body = JSON.parse(res.text);
    } catch {
      return false;
    }
  }
  return (
    body !== null &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    typeof (body as Record<string, unknown>).code === 'number' &&
    'data' in body
  );
}

async function probe(target: Target, req: TargetRequest): Promise<Probe> {
  const label = `${req.method} ${req.path}`;
  try {
    return { label, response: await target.request(req) };
  } catch (e) {
    if (e instanceof TransportError) return { label, error: e.message };
    throw e;
  }
}

/** `HTTP 404 text/html "<!DOCTYPE…"`: enough of an answer to recognise what answered. */
function describeResponse(res: TargetResponse): string {
  const type = res.headers['content-type']?.split(';')[0]?.trim();
  const body = res.text.replace(/\s+/g, ' ').trim();
  // Inner double quotes become single ones: the excerpt sits in quotes inside a sentence.
  const excerpt = (body.length > 60 ? `${body.slice(0, 60)}…` : body).replace(/"/g, "'");
  const json = res.json as Record<string, unknown> | undefined;
  const code = json && typeof json === 'object' && typeof json.code === 'number' ? `, code ${json.code}` : '';
  const text =
    json && typeof json === 'object'
      ? typeof json.message === 'string'
        ? json.message
        : typeof json.error === 'string'
          ? json.error
          : undefined
      : undefined;
  if (code) return `HTTP ${res.status}${code}${text ? ` "${text.slice(0, 120)}"` : ''}`;
  return `HTTP ${res.status}${type ? ` ${type}` : ''}${excerpt ? ` "${excerpt}"` : ' (empty body)'}`;
}

/** Connection refused, unknown host, no route, timeouts: nothing is there to answer. */
const NOTHING_THERE =
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|no answer within|not sent:/;

const TARGET_HINT = 'check --target (the base URL of the admin HTTP API, port 58080 by default)';

function notAnswering(target: Target, probes: readonly Probe[]): SetupError {
  // The transport error names the full URL; the sentence already does, so keep the path.
  const first = (probes[0].error ?? 'no answer').replace(` ${target.baseUrl}/`, ' /');
  if (probes.every((p) => NOTHING_THERE.test(p.error ?? ''))) {
    return new SetupError(`nothing answers at ${target.baseUrl} (${first}): start the server, or ${TARGET_HINT}.`, 'down');
  }
  return new SetupError(`${target.baseUrl} does not answer HTTP requests (${first}): ${TARGET_HINT}.`, 'down');
}

function notTheApi(target: Target, probes: readonly Probe[]): SetupError {
  const answered = probes.find((p) => p.response)!;
  const labels = probes.map((p) => p.label);
  const list = `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
  return new SetupError(
    `${target.baseUrl} is not the broker's admin HTTP API: none of ${list} answered with its JSON envelope (an object with a numeric "code" and "data"; ${answered.label} got ${describeResponse(answered.response!)}); ${TARGET_HINT}.`,
    'not-the-api',
  );
}

/** A refusal of the credentials, as opposed to a server failing its login (which the login checks report). */
function refused(res: TargetResponse): boolean {
  const code = (res.json as { code?: unknown } | undefined)?.code;
  if (res.status === 401 || res.status === 403 || code === 401 || code === 403) return true;
  return res.status === 200 && typeof code === 'number' && code !== 0;
}

/**
 * Probes the target with a few harmless requests, then logs in when the target has credentials.
 * Throws a SetupError when nothing answers, when no answer ever shows the API's envelope, or when
 * the login refuses the credentials. A server that implements the API imperfectly passes: its
 * deviations are what the checks are for.
 */
export async function preflight(target: Target): Promise<PreflightResult> {
  // In parallel: a hung server costs one timeout, not one per probe.
  const probes = await Promise.all(PROBES.map((req) => probe(target, req)));
  let shown = probes.find((p) => p.response && showsEnvelope(p.response));
  if (!shown && probes.every((p) => p.error)) throw notAnswering(target, probes);

  const notes: string[] = [];
  const creds = target.credentials;
  if (!creds) {
    if (!shown) {
      const login = await probe(target, { method: 'POST', path: LOGIN_PATH, body: NOBODY, auth: 'none' });
      probes.push(login);
      if (login.response && showsEnvelope(login.response)) shown = login;
      else throw notTheApi(target, probes);
    }
    return { notes, shownBy: shown.label };
  }

  let res: TargetResponse;
  try {
    res = await target.login();
  } catch (e) {
    if (!(e instanceof TransportError)) throw e;
    probes.push({ label: `POST ${LOGIN_PATH}`, error: e.message });
    if (!shown) throw notTheApi(target, probes);
    notes.push(`login with the given credentials failed: ${e.message}; requests carry no token`);
    return { notes, shownBy: shown.label };
  }
  probes.push({ label: `POST ${LOGIN_PATH}`, response: res });
  if (!shown && !showsEnvelope(res)) throw notTheApi(target, probes);
  if (refused(res)) {
    throw new SetupError(
      `login refused for user ${creds.username} at ${target.baseUrl}${LOGIN_PATH}: ${describeResponse(res)}; check --username/--password.`,
      'login-refused',
    );
  }
  if (!target.token) notes.push(`login with the given credentials failed: ${describeResponse(res)}; requests carry no token`);
  return { notes, shownBy: (shown ?? probes[probes.length - 1]).label };
}
