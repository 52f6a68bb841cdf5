/**
 * An undici dispatcher that answers some origins in-process and hands every other request to the
 * dispatcher it replaced. @mswjs/interceptors covers `http`/`https` and the global `fetch`, not
 * undici's own API (`undici.request`, `undici.fetch`, `stream`, `pipeline`), which sends through
 * undici's global dispatcher; installed as that dispatcher (`setGlobalDispatcher` stores it under a
 * global symbol that every copy of undici ≥ 5 reads, Node's built-in fetch included), this one
 * catches those requests before any socket is opened.
 *
 * Handlers come in two shapes: undici ≤ 6 and most of undici 7's own API call `onConnect`,
 * `onHeaders`, `onData`, `onComplete`, `onError`; undici 7's newer handlers `onRequestStart`,
 * `onResponseStart`, `onResponseData`, `onResponseEnd`, `onResponseError`. Both are driven here.
 */
import { STATUS_CODES } from 'node:http';
import { Dispatcher } from 'undici';

/** A request as the in-process server reads it. */
export interface DispatchedRequest {
  method: string;
  /** Path and query. */
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body?: Buffer;
}

export interface DispatchedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Answers a request to an origin it serves, or returns undefined for an origin it does not. */
export type OriginRouter = (origin: string) => ((req: DispatchedRequest) => Promise<DispatchedAnswer>) | undefined;

// Its callbacks are called by name: the handler may implement either of undici's two callback styles.
type AnyHandler = Partial<Record<string, (...args: unknown[]) => unknown>>;

/** Statuses whose answers carry no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function originOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  try {
    return new URL(String(value)).origin;
  } catch {
    return undefined;
  }
}

/** undici's request headers: an object, a flat `[name, value, …]` array, or an iterable of pairs. */
function headersOf(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (name: unknown, value: unknown): void => {
    if (value === undefined || value === null) return;
    const key = String(name).toLowerCase();
    const text = Array.isArray(value) ? value.map(String).join(', ') : String(value);
    out[key] = out[key] === undefined ? text : `${out[key]}, ${text}`;
  };
  if (raw === undefined || raw === null) return out;
  if (Array.isArray(raw)) {
    if (raw.every((x) => Array.isArray(x))) for (const [k, v] of raw as unknown[][]) add(k, v);
    else for (let i = 0; i + 1 < raw.length; i += 2) add(raw[i], raw[i + 1]);
    return out;
  }
  if (typeof (raw as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const pair of raw as Iterable<[unknown, unknown]>) add(pair[0], pair[1]);
    return out;
  }
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) add(k, v);
  return out;
}

/** undici's request body: a string, bytes, a stream or any (async) iterable of chunks. */
async function bodyOf(raw: unknown): Promise<Buffer | undefined> {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'string') return Buffer.from(raw);
  if (raw instanceof Uint8Array) return Buffer.from(raw);
  if (raw instanceof ArrayBuffer) return Buffer.from(raw);
  const iterable = raw as AsyncIterable<unknown> & Iterable<unknown>;
  if (typeof iterable[Symbol.asyncIterator] === 'function' || typeof iterable[Symbol.iterator] === 'function') {
    const chunks: Buffer[] = [];
    for await (const chunk of iterable) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  }
  throw new TypeError(`mqsim intercept: a request body of type ${Object.prototype.toString.call(raw)} cannot be read in-process`);
}

/** Delivers a complete answer to a handler of either shape. */
function deliver(handler: AnyHandler, status: number, headers: Record<string, string>, body: Buffer | undefined): void {
  const statusText = STATUS_CODES[status] ?? '';
  if (typeof handler.onRequestStart === 'function') {
    let abortedWith: Error | undefined;
    const controller = {
      abort: (reason?: Error) => {
        abortedWith = reason ?? new Error('aborted');
      },
      pause: () => {},
      resume: () => {},
      get aborted() {
        return abortedWith !== undefined;
      },
      get paused() {
        return false;
      },
      get reason() {
        return abortedWith ?? null;
      },
    };
    handler.onRequestStart(controller, {});
    if (abortedWith) return void handler.onResponseError?.(controller, abortedWith);
    handler.onResponseStart?.(controller, status, headers, statusText);
    if (body && body.length > 0) handler.onResponseData?.(controller, body);
    handler.onResponseEnd?.(controller, {});
    return;
  }
  let abortedWith: Error | undefined;
  handler.onConnect?.((reason?: Error) => {
    abortedWith = reason ?? new Error('aborted');
  }, null);
  if (abortedWith) return void handler.onError?.(abortedWith);
  const rawHeaders = Object.entries(headers).flatMap(([k, v]) => [Buffer.from(k, 'latin1'), Buffer.from(v, 'latin1')]);
  handler.onResponseStarted?.();
  handler.onHeaders?.(status, rawHeaders, () => {}, statusText);
  if (body && body.length > 0) handler.onData?.(body);
  handler.onComplete?.([]);
}

function fail(handler: AnyHandler, error: Error): void {
  if (typeof handler.onRequestStart === 'function') {
    handler.onResponseError?.({ abort() {}, pause() {}, resume() {}, aborted: true, paused: false, reason: error }, error);
  } else handler.onError?.(error);
}

/**
 * Answers the origins `route` knows in-process; any other request goes to `next` unchanged (the
 * global dispatcher that was installed before, usually undici's default Agent).
 */
export class InProcessDispatcher extends Dispatcher {
  constructor(
    private readonly route: OriginRouter,
    readonly next: Dispatcher,
  ) {
    super();
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = originOf(options.origin);
    const serve = origin === undefined ? undefined : this.route(origin);
    if (!serve) return this.next.dispatch(options, handler);
    const h = handler as AnyHandler;
    void (async () => {
      try {
        const body = await bodyOf(options.body);
        const method = String(options.method ?? 'GET').toUpperCase();
        const answer = await serve({
          method,
          url: options.path,
          headers: headersOf(options.headers),
          ...(body && body.length > 0 ? { body } : {}),
        });
        const noBody = NULL_BODY.has(answer.status) || method === 'HEAD';
        deliver(h, answer.status, answer.headers, noBody ? undefined : Buffer.from(answer.body));
      } catch (e) {
        fail(h, e instanceof Error ? e : new Error(String(e)));
      }
    })();
    return true;
  }

  /** Nothing of its own to close: `next` belongs to whoever installed it. */
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    if (callback) return void queueMicrotask(callback);
    return Promise.resolve();
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
    const callback = typeof a === 'function' ? a : b;
    if (callback) return void queueMicrotask(callback);
    return Promise.resolve();
  }
}
