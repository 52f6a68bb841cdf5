import type { EndpointContract } from '../../contract/core/types.ts';
import {
  type ConformContext,
  describeAnswer,
  envelopeOf,
  fail,
  pass,
  refusedAsInvalid,
  succeeded,
  type Verdict,
} from './conform-context.ts';
import { namesParam } from './envelope.ts';
import type { Exchange } from './exchange.ts';

/** Small pieces the family scenarios share. */

export type Row = Record<string, unknown>;

export const dataOf = (ex: Exchange): Row | undefined => envelopeOf(ex)?.data as Row | undefined;

/** Records of a paged list answer (empty when it is not one). */
export function rowsOf(ex: Exchange): Row[] {
  const data = envelopeOf(ex)?.data as { data?: unknown } | undefined;
  return succeeded(ex) && Array.isArray(data?.data) ? (data.data as Row[]) : [];
}

export function totalOf(ex: Exchange): number | undefined {
  const t = (envelopeOf(ex)?.data as { total_count?: unknown } | undefined)?.total_count;
  return typeof t === 'number' ? t : undefined;
}

/** Reads a list with the given filters; `undefined` endpoint when the contract lacks it. */
export async function readList(
  ctx: ConformContext,
  path: string,
  params: Record<string, unknown>,
  purpose: 'check' | 'fixture' = 'check',
): Promise<{ ex: Exchange; rows: Row[] } | undefined> {
  const e = ctx.endpoint('GET', path) ?? ctx.endpoint('POST', path);
  if (!e) return undefined;
  const ex = await ctx.call(e, { limit: e.list?.defaultLimit ?? 10_000, ...params }, purpose);
  return { ex, rows: rowsOf(ex) };
}

/** Lets time pass on the target: the simulator's control advances its clock, any other server gets real time. */
export async function letTimePass(ctx: ConformContext, ms: number): Promise<void> {
  if (ctx.target.control) await ctx.target.control.advance(ms);
  else await new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * How often a wait in real time (a target without the simulator's clock) asks again: soon enough that
 * the wait ends within this of its evidence showing, seldom enough to stay well inside the spec's
 * admin rate limit (50 requests per second per path) beside the other families' checks.
 */
export const REAL_POLL_MS = 100;

/**
 * Polls `probe` until it returns a value, for at most `maxMs` of target time; returns the value (or
 * the last undefined) and the time waited. With the simulator's control its clock advances `stepMs`
 * between asks (waited: the steps' sum); any other server is asked every REAL_POLL_MS (at most
 * `stepMs`) of real time until `maxMs` have passed (waited: the real time since the first ask).
 */
export async function pollFor<T>(
  ctx: ConformContext,
  maxMs: number,
  stepMs: number,
  probe: () => Promise<T | undefined>,
): Promise<{ value: T | undefined; waited: number }> {
  if (ctx.target.control) {
    for (let waited = 0; ; waited += stepMs) {
      const value = await probe();
      if (value !== undefined || waited >= maxMs) return { value, waited };
      await ctx.target.control.advance(stepMs);
    }
  }
  const start = performance.now();
  for (;;) {
    const value = await probe();
    const waited = Math.round(performance.now() - start);
    if (value !== undefined || waited >= maxMs) return { value, waited };
    await new Promise((resolve) => setTimeout(resolve, Math.min(REAL_POLL_MS, stepMs, maxMs - waited)));
  }
}

/** Polls `probe` every `stepMs` of target time until it returns a value, for at most `maxMs` (see pollFor). */
export async function waitFor<T>(
  ctx: ConformContext,
  maxMs: number,
  stepMs: number,
  probe: () => Promise<T | undefined>,
): Promise<T | undefined> {
  return (await pollFor(ctx, maxMs, stepMs, probe)).value;
}

/**
 * A refusal as the spec's parameter error (HTTP 400 or code 400), or, where the contract allows other
 * failure codes for the parameter (`allowed`), any of those.
 */
export function refused(ex: Exchange, allowed: readonly number[] = [400]): boolean {
  if (refusedAsInvalid(ex) && allowed.includes(400)) return true;
  const env = envelopeOf(ex);
  return env !== undefined && env.code !== 0 && allowed.includes(env.code);
}

/** Verdict of a request that must be refused; `what` says why in words. */
export function expectRefused(ex: Exchange, what: string, allowed: readonly number[] = [400]): Verdict {
  if (!ex.response) return fail(`no answer: ${ex.error}`, ex);
  if (refused(ex, allowed)) return pass(`${what}: refused (${describeAnswer(ex)})`);
  if (succeeded(ex)) return fail(`${what}, but it was accepted: ${describeAnswer(ex)}`, ex);
  return fail(`${what}: expected a refusal with code ${allowed.join(' or ')}, got ${describeAnswer(ex)}`, ex);
}

/** Does the refusal's text name the parameter? */
export function refusalNames(ex: Exchange, param: string): boolean {
  return namesParam(envelopeOf(ex)?.text ?? ex.response?.text, param);
}

/** Failure codes the contract allows when `param` is invalid: 400, plus those of an error case naming it. */
export function allowedCodes(e: EndpointContract, param: string): number[] {
  const codes = new Set<number>([400]);
  for (const c of e.errors) {
    if (c.message !== param && !(param.startsWith(`${c.message}.`) && c.message === 'config')) continue;
    for (const code of Array.isArray(c.code) ? c.code : [c.code as number]) codes.add(code);
  }
  return [...codes];
}

/** Wraps a check's function so its verdict also cites `also` (assertions of its level the same evidence decides). */
export function withAlso(also: readonly string[], fn: () => Promise<Verdict> | Verdict): () => Promise<Verdict> {
  return async () => {
    const v = await fn();
    return { ...v, also: [...(v.also ?? []), ...also] };
  };
}
