/**
 * The baseline of the list benchmark: a bare node:http server that answers each request (method, URL
 * with its query, body) with the bytes recorded from the simulator for that very request (status,
 * headers, body), after reading the whole request body. Prints its URL on stdout once listening.
 *
 *   node --import tsx scripts/bench/list-bare-server.ts recorded.json
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestKey, type RecordedListAnswer } from './list-bench.ts';

const recorded = JSON.parse(readFileSync(process.argv[2], 'utf8')) as RecordedListAnswer[];
const byKey = new Map(recorded.map((a) => [requestKey(a.method, a.url, a.body), { ...a, bytes: Buffer.from(a.answer) }]));

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined;
    const a = byKey.get(requestKey(req.method ?? 'GET', req.url ?? '/', body));
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
