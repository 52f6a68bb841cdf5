import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Auth } from './plain-server/auth.ts';
import { httpHandler, routesOf } from './plain-server/http.ts';
import { PlainStore } from './plain-server/store.ts';

/**
 * A second, independent implementation of part of the admin HTTP API, written from the spec
 * (spec/admin-http-api.md) alone, with the reference notes for the shapes the spec does
 * not show: it keeps records in plain arrays and answers every list by the obvious computation on
 * each request (filter, sort, slice, count). It serves the probes `mqsim conform` starts with (ready,
 * info, status, login) and tenants, users, ACL rules, blacklist entries, topic-rewrite and
 * auto-subscribe rules, connectors, schemas and their bindings, topics and storage shards (create,
 * delete, list; tenants also update). It imports nothing of the simulator or the contract
 * (a test checks it), so a check that fails here and passes on the simulator is told apart.
 *
 * Where the spec is silent it deliberately chooses differently from the simulator, so the suites can
 * be calibrated on a correct server that makes other choices (options turn some of them around):
 * - envelope form B `{code, data, error}` (option `envelope: 'A'`); login answers in form A, as shown;
 * - generic failure code 100 (the spec: 1, "and in one sample 100"; option `failureCode: 1`), HTTP 200;
 * - base order without sort_field: newest first, not insertion order (option `baseOrder: 'oldest-first'`);
 * - records with equal keys under a sort come in the reverse of that base order (oldest first);
 * - `sort_by` absent means descending, the real server's reading (option `sortByDefault: 'asc'`);
 * - `exact_match` absent means exact, the real server's reading (option `exactMatchDefault: false`);
 * - contains filters ignore case (the real server lowercases both sides); exact filters do not;
 * - strings sort by code point, numbers as numbers, false before true;
 * - a `sort_field` the spec does not list for the endpoint, a `sort_by` other than asc/desc, an
 *   unknown `filter_field`, `page` 0 and a `limit` that is no u32 are refused as parameter errors
 *   (HTTP 400, code 400, naming the parameter); `limit` 0 means the default page size;
 * - a repeated create of an existing name replaces it for ACL rules and blacklist entries (as the
 *   real server) and is refused (code 100) for every other family;
 * - a delete of a name that does not exist succeeds (idempotent); deleting a schema drops its bindings;
 * - tenant update: `desc` left out clears it, a given `config` replaces the quota (defaults for the
 *   fields left out), as the real server; an unknown tenant is code 100 "Tenant <name> not found";
 * - no tenant needs to exist for a record in it; names are unique per tenant (connectors too);
 * - connectors stay Idle with broker_id null (nothing runs them); their config is listed as sent; the
 *   catalogue's rules are checked, not ranges it does not give (ports); the failure strategy's
 *   numbers are typed as the reference server types them (retry_total_times u32, wait_time_ms u64);
 * - nothing beyond the spec's field rules: a rewrite regex is not compiled, a schema text not parsed,
 *   no tenant quota enforced, a shard's replica_num not held against the one node;
 * - schema-bind list: the reference rows `{data_type, data: [names]}` for the given resource_name
 *   and/or schema_name, none without either; topic create answers the new topic record;
 * - shard list rows are the reference's `{shard_info: {...}}` only; a shard delete is immediate;
 * - topic partitions at most 1024; bodies at most 1 MiB (413); wrong method 405; unknown path 404;
 * - only 127.0.0.1 and ::1 are exempt from tokens, as the spec says (the real server exempts 127/8).
 */

export interface PlainListServerOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  envelope?: 'A' | 'B';
  failureCode?: 1 | 100;
  baseOrder?: 'newest-first' | 'oldest-first';
  sortByDefault?: 'asc' | 'desc';
  exactMatchDefault?: boolean;
  /** Config section `admin` (defaults admin / admin, 8 hours). */
  username?: string;
  password?: string;
  jwtSecret?: string;
  tokenTtlHours?: number;
  /** Unix milliseconds (default the wall clock). */
  now?: () => number;
}

export interface PlainListServer {
  url: string;
  close(): Promise<void>;
}

export async function startPlainListServer(options: PlainListServerOptions = {}): Promise<PlainListServer> {
  const clock = { now: options.now ?? (() => Date.now()) };
  const store = new PlainStore(
    {
      baseOrder: options.baseOrder ?? 'newest-first',
      sortByDefault: options.sortByDefault ?? 'desc',
      exactMatchDefault: options.exactMatchDefault ?? true,
    },
    clock,
  );
  const auth = new Auth({
    username: options.username ?? 'admin',
    password: options.password ?? 'admin',
    jwtSecret: options.jwtSecret ?? 'plain-list-server-secret-of-32-characters',
    tokenTtlHours: options.tokenTtlHours ?? 8,
  });
  const handler = httpHandler(routesOf(store, auth, clock), auth, {
    envelope: options.envelope ?? 'B',
    failureCode: options.failureCode ?? 100,
  });
  const server = createServer(handler);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

// `node --import tsx suites/conform/testing/plain-list-server.ts --port N` prints its URL and serves until stopped.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, host: { type: 'string' } } });
  const server = await startPlainListServer({ port: Number(values.port), ...(values.host ? { host: values.host } : {}) });
  console.log(server.url);
}
