import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A deliberately broken server for the properties' own tests: a node:http proxy in front of a
 * working server that changes chosen answers (accepts what must be refused, loses a record, breaks
 * an envelope). It proves the properties find such deviations and attribute them to the right endpoint.
 */

interface ProxiedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

interface ProxiedResponse {
  status: number;
  body: string;
}

/**
 * Returns the answer to send, or undefined to pass the upstream answer through unchanged. `forward`
 * sends the request upstream once (with another JSON body when given).
 */
export type Fault = (req: ProxiedRequest, forward: (body?: unknown) => Promise<ProxiedResponse>) => Promise<ProxiedResponse | undefined>;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startFaultProxy(upstream: string, fault: Fault): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://proxy');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      // Forwarded at most once: a fault that looked at the upstream answer and passes it on must not repeat the request.
      let upstreamAnswer: Promise<ProxiedResponse> | undefined;
      const forward = (replaced?: unknown): Promise<ProxiedResponse> =>
        (upstreamAnswer ??= forwardOnce(replaced === undefined ? raw : JSON.stringify(replaced)));
      const forwardOnce = async (text: string): Promise<ProxiedResponse> => {
        const r = await fetch(`${upstream}${req.url}`, {
          method: req.method,
          headers: text ? { 'content-type': 'application/json' } : {},
          ...(text && req.method !== 'GET' ? { body: text } : {}),
        });
        return { status: r.status, body: await r.text() };
      };
      const answer =
        (await fault({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, body }, forward)) ?? (await forward());
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    })().catch((e: Error) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy error: ${e.message}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const SUCCESS = JSON.stringify({ code: 0, message: 'success', data: 'success' });

/** Rewrites the paged-list `data` of a JSON answer. */
export function editList(
  body: string,
  edit: (rows: Record<string, unknown>[], total: number) => { rows: Record<string, unknown>[]; total: number },
): string {
  const json = JSON.parse(body) as { data?: { data?: Record<string, unknown>[]; total_count?: number } };
  if (!json.data || !Array.isArray(json.data.data)) return body;
  const out = edit(json.data.data, json.data.total_count ?? 0);
  json.data.data = out.rows;
  json.data.total_count = out.total;
  return JSON.stringify(json);
}
