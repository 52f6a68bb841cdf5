import fc from 'fast-check';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusterServer, type RunningCluster } from '../io/serve/cluster-server.ts';
import { answerProblem, anyMalformedRequest, describeRequest, KEEP_PREFIX, prototypeSnapshot } from './fuzz-requests.ts';

/**
 * Fuzzing the admin HTTP layer over a real socket (a listener of this process on a free loopback
 * port): a sample of the generated malformed requests of fuzz.test.ts sent as raw bytes, and
 * malformed HTTP itself, which never reaches the admin app in-process. Same properties: never a 5xx,
 * always an envelope, nothing created beforehand lost, prototypes untouched. FUZZ_SEED overrides the seed.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

const KEEP_TENANTS = [0, 1, 2].map((i) => `${KEEP_PREFIX}-tenant-${i}`);

/** One raw HTTP/1.1 exchange over a socket: whatever bytes we like, whatever comes back. */
function rawExchange(port: number, bytes: Buffer | string, timeoutMs = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    });
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.end(bytes);
  });
}

/** Splits a raw HTTP answer into status and body (the first answer only). */
function parseRaw(text: string): { status: number; body: string } {
  const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
  const split = text.indexOf('\r\n\r\n');
  return { status: m ? Number(m[1]) : 0, body: split === -1 ? '' : text.slice(split + 4) };
}

describe('fuzzing the admin HTTP layer over real sockets', () => {
  let server: RunningCluster;
  let port: number;
  beforeAll(async () => {
    server = await startClusterServer({
      seed: 1,
      nodes: 1,
      port: 0,
      workload: 'none',
      onInternalError: (e) => {
        throw e;
      },
    });
    port = Number(new URL(server.baseUrl).port);
    for (const t of KEEP_TENANTS)
      await fetch(`${server.baseUrl}/api/cluster/tenant/create`, {
        method: 'POST',
        body: JSON.stringify({ tenant_name: t }),
        headers: { 'content-type': 'application/json' },
      });
  });
  afterAll(async () => server?.close());

  it('a sample of generated requests sent as raw bytes gets envelopes, never a 5xx', async () => {
    const before = prototypeSnapshot();
    await fc.assert(
      fc.asyncProperty(anyMalformedRequest, async (req) => {
        const body = req.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
        // Raw bytes of the target: CR/LF and NUL in the path would split the request line; the parser must still answer.
        const target = req.url.startsWith('/') ? req.url : `/${req.url}`;
        const head = [
          `${req.method || 'GET'} ${Buffer.from(target, 'utf8').toString('latin1')} HTTP/1.1`,
          'host: 127.0.0.1',
          'connection: close',
          `content-length: ${body.length}`,
        ];
        for (const [k, v] of Object.entries(req.headers ?? {})) if (typeof v === 'string') head.push(`${k}: ${v}`);
        const raw = Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
        const { status, body: answer } = parseRaw(await rawExchange(port, raw));
        if (req.method.toUpperCase() === 'HEAD') return;
        expect(status, describeRequest(req)).toBeGreaterThanOrEqual(200);
        const problem = answerProblem({ ...req, url: target }, { status, headers: {}, body: answer });
        if (problem) throw new Error(`${problem}\n  request: ${describeRequest(req)}`);
      }),
      { seed: SEED, numRuns: 150 },
    );
    expect(prototypeSnapshot()).toBe(before);
    const list = (await (await fetch(`${server.baseUrl}/api/cluster/tenant/list?limit=100`)).json()) as {
      data: { data: Array<{ tenant_name: string }> };
    };
    for (const t of KEEP_TENANTS) expect(list.data.data.map((x: { tenant_name: string }) => x.tenant_name)).toContain(t);
  }, 60_000);

  it('malformed HTTP itself (bad request line, huge header, NUL bytes) is answered with an envelope', async () => {
    const cases: Array<[string, string | Buffer]> = [
      ['garbage request line', 'HELLO\r\n\r\n'],
      ['NUL in path', 'GET /api/status\u0000x HTTP/1.1\r\nhost: x\r\n\r\n'],
      ['space in path', 'GET /api/ status HTTP/1.1\r\nhost: x\r\n\r\n'],
      ['huge header value', `GET /api/status HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(100_000)}\r\n\r\n`],
      [
        'many headers',
        `GET /api/status HTTP/1.1\r\nhost: x\r\n${Array.from({ length: 3000 }, (_, i) => `x-h${i}: v`).join('\r\n')}\r\n\r\n`,
      ],
      ['bad content-length', 'POST /api/cluster/tenant/create HTTP/1.1\r\nhost: x\r\ncontent-length: abc\r\n\r\n{}'],
      ['two content-lengths', 'POST /api/cluster/tenant/create HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\ncontent-length: 5\r\n\r\n{}'],
      [
        'bad chunked body',
        'POST /api/cluster/tenant/create HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      ],
      [
        'invalid UTF-8 in header',
        Buffer.concat([
          Buffer.from('GET /api/status HTTP/1.1\r\nhost: x\r\nx-a: '),
          Buffer.from([0xff, 0xfe, 0xc0]),
          Buffer.from('\r\n\r\n'),
        ]),
      ],
      ['HTTP/0.9 style', 'GET /\r\n\r\n'],
      ['unknown version', 'GET /api/status HTTP/9.9\r\nhost: x\r\n\r\n'],
    ];
    for (const [name, bytes] of cases) {
      const { status, body } = parseRaw(await rawExchange(port, bytes));
      expect(status, name).toBeGreaterThanOrEqual(200);
      expect(status, name).toBeLessThan(500);
      if (status >= 400) {
        const env = JSON.parse(body);
        expect(typeof env.code, name).toBe('number');
        expect(env.message, name).toMatch(/\w{4,}/);
      }
    }
    // The listener still serves normal requests afterwards.
    const ok = await new Promise<number>((resolve, reject) => {
      request(`${server.baseUrl}/api/status`, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(ok).toBe(200);
  }, 30_000);
});
