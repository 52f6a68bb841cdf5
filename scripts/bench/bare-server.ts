/**
 * The baseline of the HTTP benchmarks (bench, bench:lists): a bare node:http server that answers each
 * request with bytes recorded from `mqsim serve` (status, headers and body, read from the JSON file
 * given as argument), after reading the whole request body as mqsim does. What is left is the cost of
 * Node's HTTP stack and the sockets: the ratio mqsim / bare is what the simulator itself costs.
 * Prints its URL on stdout once listening.
 *
 *   node --import tsx scripts/bench/bare-server.ts recorded.json
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An answer to every request of `method` on `path` (any query, any body), or, with `request`, to
 * that very request only (URL with its query, and body): a list's pages and sorts differ by query.
 */
export interface RecordedAnswer {
  method: string;
  path: string;
  request?: { url: string; body?: string };
  status: number;
  headers: Record<string, string>;
  body: string;
}

const answers = JSON.parse(readFileSync(process.argv[2], 'utf8')) as RecordedAnswer[];
const exactKey = (method: string, url: string, body: string | undefined): string => `${method} ${url} ${body ?? ''}`;
const exact = new Map(
  answers.filter((a) => a.request).map((a) => [exactKey(a.method, a.request!.url, a.request!.body), { ...a, bytes: Buffer.from(a.body) }]),
);
const byPath = new Map(answers.filter((a) => !a.request).map((a) => [`${a.method} ${a.path}`, { ...a, bytes: Buffer.from(a.body) }]));

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const url = req.url ?? '/';
    const body = chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined;
    const a = exact.get(exactKey(req.method ?? 'GET', url, body)) ?? byPath.get(`${req.method} ${url.split('?')[0]}`);
    if (!a) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(a.status, a.headers);
    res.end(a.bytes);
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
