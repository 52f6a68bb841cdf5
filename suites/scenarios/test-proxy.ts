import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A test helper: an HTTP proxy in front of a server under test that can change answers on the way
 * back (a seeded deviation) and choose the peer address the server sees. By default the client's own
 * address is kept (127.0.0.2 stays 127.0.0.2); `exemptEveryPeer` forwards everything from 127.0.0.1,
 * so the proxied server answers 127.0.0.2 without a token, like a server exempting all of 127/8.
 */
export interface ProxyOptions {
  exemptEveryPeer?: boolean;
  /** Forward requests from these client addresses from 127.0.0.1: a server exempting just them. */
  exemptPeers?: readonly string[];
  /** New body text for an answer, or undefined to keep it. */
  rewrite?: (method: string, path: string, status: number, body: string) => string | undefined;
}

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

export async function startProxy(upstream: string, options: ProxyOptions = {}): Promise<RunningProxy> {
  const target = new URL(upstream);
  const server: Server = createServer(async (req, res) => {
    try {
      const body = await readAll(req);
      const headers = { ...req.headers, host: target.host };
      const client = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
      const peer = options.exemptEveryPeer || options.exemptPeers?.includes(client) ? '127.0.0.1' : client;
      const answer = await new Promise<IncomingMessage>((resolve, reject) => {
        const out = request(
          { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, localAddress: peer },
          resolve,
        );
        out.on('error', reject);
        out.end(body);
      });
      let text = (await readAll(answer)).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      text = options.rewrite?.(req.method ?? 'GET', path, answer.statusCode ?? 0, text) ?? text;
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(answer.headers))
        if (v !== undefined && k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection')
          out[k] = Array.isArray(v) ? v.join(', ') : v;
      res.writeHead(answer.statusCode ?? 502, { ...out, 'content-length': String(Buffer.byteLength(text)) });
      res.end(text);
    } catch (e) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 502, message: `proxy: ${(e as Error).message}`, data: null }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
