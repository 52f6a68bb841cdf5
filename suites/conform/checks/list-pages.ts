import type { EndpointContract } from '../../../contract/core/types.ts';
import { type ConformContext, envelopeOf, refusedAsInvalid, succeeded, type Verdict } from '../conform-context.ts';
import { namesParam } from '../envelope.ts';
import type { Exchange } from '../exchange.ts';

/**
 * Fetching the pages of a list for the list laws (list-paging.ts, list-sorting.ts, list-filters.ts,
 * list-params.ts, list-visibility.ts), and the retry every law goes through.
 */

export type Row = Record<string, unknown>;

export interface Page {
  ex: Exchange;
  rows: Row[];
  total: number;
}

/** Fields that identify a record across requests (values that change, like counters, are left out). */
export const IDENTITY_FIELDS = [
  'tenant',
  'tenant_name',
  'name',
  'username',
  'client_id',
  'connection_id',
  'path',
  'connector_name',
  'topic_id',
  'topic_name',
  'mail_address',
  'schema_name',
  'resource_name',
  'data_type',
  'shard_name',
  'segment_seq',
  'node_id',
];

export function fingerprint(row: Row): string {
  const keys = IDENTITY_FIELDS.filter((k) => k in row);
  return JSON.stringify(keys.length > 0 ? keys.map((k) => row[k]) : row);
}

export function pageOf(ex: Exchange): Page | undefined {
  if (!succeeded(ex)) return undefined;
  const data = envelopeOf(ex)?.data as { data?: unknown; total_count?: unknown } | undefined;
  if (!data || !Array.isArray(data.data) || typeof data.total_count !== 'number') return undefined;
  return { ex, rows: data.data as Row[], total: data.total_count };
}

export async function fetchPage(
  ctx: ConformContext,
  e: EndpointContract,
  base: Record<string, unknown>,
  extra: Record<string, unknown>,
): Promise<Page | Exchange> {
  const ex = await ctx.call(e, { ...base, ...extra });
  return pageOf(ex) ?? ex;
}

export const isPage = (p: Page | Exchange): p is Page => 'rows' in p;

/** A verdict with further assertions its evidence decides (the engine keeps those of the check's level). */
export const withAlso = (v: Verdict, also: readonly string[]): Verdict => ({ ...v, also: [...(v.also ?? []), ...also] });

/** A page size that holds every record of any list the run can make: the whole set on one page. */
export const WHOLE = 10_000;

/** Runs a law twice before failing it: live targets change between two requests (clients come and go). */
export async function settled(law: () => Promise<Verdict>): Promise<Verdict> {
  const first = await law();
  if (first.status !== 'fail') return first;
  const second = await law();
  return second.status === 'fail'
    ? { ...second, message: `${second.message} (seen twice)` }
    : { ...second, message: `${second.message} (after one retry: the first attempt saw ${first.message})` };
}

/** Pages of a list the laws fetched: pages 1 and 2 of size 2 sorted ascending by the first sort field, the page without limit, the whole list sorted ascending. */
export interface SeenPages {
  pageOne?: Page;
  pageTwo?: Page;
  unlimited?: Page;
  asc?: Page;
}

/** A parameter error (HTTP 400 or code 400, non-zero code) whose text names `param`. */
export function refusedNaming(ex: Exchange, param: string): boolean {
  return ex.response !== undefined && refusedAsInvalid(ex) && namesParam(envelopeOf(ex)?.text ?? ex.response.text, param);
}

/** The rows of the whole list (one page of WHOLE), for the visibility checks. */
export async function wholeList(ctx: ConformContext, e: EndpointContract, base: Record<string, unknown> = {}): Promise<Page | Exchange> {
  return fetchPage(ctx, e, base, { limit: Math.max(e.list!.defaultLimit, WHOLE) });
}
