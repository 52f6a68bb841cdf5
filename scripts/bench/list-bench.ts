/**
 * The machinery of the list benchmark (scripts/bench-lists.ts): the simulator server filled with N
 * records per list, the requests of each list (one 100-record page: default order, sorted, filtered
 * and sorted), their answers recorded from the simulator, a bare node:http server replaying exactly
 * those bytes, and the load measured against both in the same run.
 */
import { writeFileSync } from 'node:fs';
import { request } from 'undici';
import { endpointById } from '../../contract/index.ts';
import { spawnPrintingUrl, type SpawnedTarget } from '../../suites/targets/spawned-target.ts';
import type { RecordedAnswer } from './bare-server.ts';
import { LIST_CASES, type ListCase } from './list-cases.ts';

export interface RecordedListAnswer {
  method: 'GET' | 'POST';
  url: string;
  /** Request body (POST lists), as sent. */
  body?: string;
  status: number;
  headers: Record<string, string>;
  answer: string;
}

type QueryKind = 'default' | 'sorted' | 'filtered+sorted';

export interface ListRequest {
  id: string;
  kind: QueryKind;
  method: 'GET' | 'POST';
  url: string;
  body?: string;
}

const PAGE_SIZE = 100;
/** The page read: the fifth, so the default order is not just the first records. */
const PAGE = 5;

/** The requests of a list: its page in default order, sorted (descending) and filtered then sorted. */
export function requestsOf(c: ListCase): ListRequest[] {
  const e = endpointById(c.id);
  const base: Record<string, string> = { limit: String(PAGE_SIZE), page: String(PAGE) };
  const sort: Record<string, string> = c.sortField ? { sort_field: c.sortField, sort_by: 'desc' } : {};
  const filter = { filter_field: c.filter.field, filter_values: c.filter.value, exact_match: 'false' };
  const queries: [QueryKind, Record<string, string>][] = [
    ['default', base],
    ...(c.sortField ? [['sorted', { ...base, ...sort }] as [QueryKind, Record<string, string>]] : []),
    ['filtered+sorted', { ...base, ...filter, ...sort }],
  ];
  return queries.map(([kind, q]) =>
    e.method === 'GET'
      ? { id: c.id, kind, method: 'GET', url: `${e.path}?${new URLSearchParams(q).toString()}` }
      : // A POST list takes its parameters as a JSON body (filter_values as an array).
        {
          id: c.id,
          kind,
          method: 'POST',
          url: e.path,
          body: JSON.stringify({ ...q, limit: PAGE_SIZE, page: PAGE, ...(q.filter_values ? { filter_values: [q.filter_values] } : {}) }),
        },
  );
}

/** The answer headers a client sees, minus those Node's server adds itself. */
function replayableHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined || ['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export async function send(baseUrl: string, r: ListRequest): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const res = await request(baseUrl + r.url, {
    method: r.method,
    ...(r.body !== undefined ? { body: r.body, headers: { 'content-type': 'application/json' } } : {}),
  });
  return { status: res.statusCode, headers: replayableHeaders(res.headers), body: await res.body.text() };
}

/** Starts the simulator server with `records` records in each list of `ids` (all by default). */
export function startSimServer(records: number, ids?: readonly string[]): Promise<SpawnedTarget> {
  const args = ['--import', 'tsx', 'scripts/bench/list-sim-server.ts', String(records), ...(ids ? [ids.join(',')] : [])];
  return spawnPrintingUrl(process.execPath, args, 'list simulator server');
}

/** Starts the bare server (scripts/bench/bare-server.ts) answering each recorded request, exactly, with its bytes; `file` holds them. */
export function startBareServer(recorded: readonly RecordedListAnswer[], file: string): Promise<SpawnedTarget> {
  const answers: RecordedAnswer[] = recorded.map((a) => ({
    method: a.method,
    path: a.url.split('?')[0],
    request: { url: a.url, ...(a.body !== undefined ? { body: a.body } : {}) },
    status: a.status,
    headers: a.headers,
    body: a.answer,
  }));
  writeFileSync(file, JSON.stringify(answers));
  return spawnPrintingUrl(process.execPath, ['--import', 'tsx', 'scripts/bench/bare-server.ts', file], 'bare server');
}

/** Records the simulator's answer to every request; each must be a success with at most one page. */
export async function recordAnswers(simUrl: string, requests: readonly ListRequest[]): Promise<RecordedListAnswer[]> {
  const out: RecordedListAnswer[] = [];
  for (const r of requests) {
    const a = await send(simUrl, r);
    const json = JSON.parse(a.body) as { code: number; data?: { data?: unknown[]; total_count?: number } };
    if (a.status !== 200 || json.code !== 0) throw new Error(`${r.method} ${r.url}: HTTP ${a.status} ${a.body.slice(0, 300)}`);
    if ((json.data?.data?.length ?? 0) > PAGE_SIZE) throw new Error(`${r.url}: more than one page answered`);
    out.push({
      method: r.method,
      url: r.url,
      ...(r.body !== undefined ? { body: r.body } : {}),
      status: a.status,
      headers: a.headers,
      answer: a.body,
    });
  }
  return out;
}

/** total_count and page length of a recorded answer. */
export function countsOf(a: RecordedListAnswer): { total: number; page: number } {
  const json = JSON.parse(a.answer) as { data: { data: unknown[]; total_count: number } };
  return { total: json.data.total_count, page: json.data.data.length };
}

export { LIST_CASES };
