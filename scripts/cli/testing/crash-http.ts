/**
 * Test support for the crash torture (crash-torture.ts): the admin API of a `mqsim serve` that is
 * killed at any moment. Each life of the server gets its own connection pool, destroyed at the
 * kill, so no request of the next life rides on a socket of the dead process.
 */
import { Agent, request } from 'undici';

/** An answer that did not come (the server died first) or was not a success. */
export class NotAcknowledged extends Error {}

export class ServerApi {
  private readonly agent = new Agent({ connections: 16, pipelining: 0 });

  constructor(readonly urls: readonly string[]) {}

  /** POSTs a write to node `node` (1-based, wrapped); resolves with `data` of a code-0 answer. */
  async write(node: number, path: string, body: unknown): Promise<unknown> {
    const answer = await this.call('POST', this.urls[(node - 1) % this.urls.length] + path, body);
    if (answer.code !== 0) throw new UnexpectedAnswer(`${path} answered ${JSON.stringify(answer).slice(0, 300)}`);
    return answer.data;
  }

  /** GETs (or POSTs, for reads that take a body) from node 1; throws unless code 0. */
  async read(path: string, body?: unknown): Promise<any> {
    const answer = await this.call(body === undefined ? 'GET' : 'POST', this.urls[0] + path, body);
    if (answer.code !== 0) throw new Error(`${path} answered ${JSON.stringify(answer).slice(0, 300)}`);
    return answer.data;
  }

  /** The `data.data` rows of a list endpoint, all of them (the query gets a large limit). */
  async list(path: string): Promise<any[]> {
    const data = await this.read(`${path}${path.includes('?') ? '&' : '?'}limit=1000000`);
    return data?.data ?? [];
  }

  /** Drops every connection (the server is gone). */
  async close(): Promise<void> {
    await this.agent.destroy().catch(() => {});
  }

  private async call(method: string, url: string, body: unknown): Promise<any> {
    let text: string;
    try {
      const res = await request(url, {
        method: method as 'GET' | 'POST',
        dispatcher: this.agent,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      text = await res.body.text();
    } catch (e) {
      throw new NotAcknowledged(`${method} ${url}: ${(e as Error).message}`, { cause: e });
    }
    return JSON.parse(text);
  }
}

/** A write answered with a failure: a bug of the server or of the torture, never expected. */
export class UnexpectedAnswer extends Error {}
