/**
 * The baseline of the HTTP benchmark: a bare node:http server that answers each (method, path) with
 * bytes recorded from `mqsim serve` (status, headers and body, read from the JSON file given as
 * argument), after reading the whole request body as mqsim does. What is left is the cost of Node's
 * HTTP stack and the sockets: the ratio mqsim / bare is what the simulator itself costs.
 * Prints its URL on stdout once listening.
 *
 *   node --import tsx scripts/bench/bare-server.ts recorded.json
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedAnswer {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

const answers = JSON.parse(readFileSync(process.argv[2], 'utf8')) as RecordedAnswer[];
const byKey = new Map(answers.map((a) => [`${a.method} ${a.path}`, { ...a, bytes: Buffer.from(a.body) }]));

const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    const path = (req.url ?? '/').split('?')[0];
    const a = byKey.get(`${req.method} ${path}`);
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
