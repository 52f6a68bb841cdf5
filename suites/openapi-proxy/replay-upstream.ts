import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { parseSlViolations, type ParsedViolations } from './sl-violations.ts';
import type { ProxiedExchange } from './violation-recording-target.ts';

/** Header that tells the replay upstream which recorded answer to give. */
const REPLAY_HEADER = 'x-mqsim-replay';

/**
 * Sends recorded exchanges through a Prism proxy again, with an upstream that gives back each
 * recorded answer byte for byte: the same requests and the same answers, checked against another
 * document. This shows what a document variant says about traffic without running the suites again.
 */
export async function replayThroughProxy(
  exchanges: readonly ProxiedExchange[],
  startProxy: (upstream: string) => Promise<{ url: string; stop(): Promise<void> }>,
  concurrency = 8,
): Promise<ParsedViolations[]> {
  const upstream = await startReplayUpstream(exchanges);
  try {
    const proxy = await startProxy(upstream.url);
    const agent = new Agent({ connections: concurrency, keepAliveTimeout: 10_000 });
    try {
      const results: ParsedViolations[] = new Array(exchanges.length);
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < exchanges.length) {
          const i = next++;
          const { request: req } = exchanges[i];
          const res = await request(`${proxy.url}${req.url}`, {
            dispatcher: agent,
            method: req.method as 'GET',
            headers: { ...req.headers, [REPLAY_HEADER]: String(i) },
            ...(req.body !== undefined ? { body: req.body } : {}),
          });
          await res.body.text();
          const header = res.headers['sl-violations'];
          results[i] = parseSlViolations(Array.isArray(header) ? header.join(', ') : header);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return results;
    } finally {
      await agent.close();
      await proxy.stop();
    }
  } finally {
    await upstream.close();
  }
}

/** An HTTP server that answers the request marked `x-mqsim-replay: N` with recorded answer N. */
async function startReplayUpstream(exchanges: readonly ProxiedExchange[]): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    const index = Number(req.headers[REPLAY_HEADER]);
    const answer = Number.isInteger(index) ? exchanges[index]?.answer : undefined;
    if (!answer) {
      // Not one of the replayed requests (Prism probing the upstream, a bug): say so loudly.
      res
        .writeHead(599, { 'content-type': 'text/plain' })
        .end(`no recorded answer for ${REPLAY_HEADER}: ${String(req.headers[REPLAY_HEADER])}`);
      return;
    }
    res.writeHead(answer.status, answer.contentType ? { 'content-type': answer.contentType } : {}).end(answer.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
