/**
 * A small admin client of the broker, written with `fetch`: the kind of code a dashboard, an operator
 * or a CLI has, and the code under test of the library example (broker-admin.test.ts, also in the
 * README). Nothing in it knows about mqsim.
 */

/** The broker refused a request: its `code` and its message. */
export class BrokerError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'BrokerError';
  }
}

interface Envelope<T> {
  code: number;
  message?: string;
  error?: string | null;
  data: T;
}

export class BrokerAdmin {
  private token: string | undefined;

  constructor(private readonly baseUrl: string) {}

  async login(username: string, password: string): Promise<void> {
    const { token } = await this.call<{ token: string }>('POST', '/api/v1/login', { username, password });
    this.token = token;
  }

  async createTenant(name: string): Promise<void> {
    await this.call('POST', '/api/cluster/tenant/create', { tenant_name: name });
  }

  async tenantNames(): Promise<string[]> {
    const page = await this.call<{ data: { tenant_name: string }[] }>('GET', '/api/cluster/tenant/list');
    return page.data.map((t) => t.tenant_name);
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const envelope = (await res.json()) as Envelope<T>;
    if (envelope.code !== 0) throw new BrokerError(envelope.code, envelope.message ?? envelope.error ?? `HTTP ${res.status}`);
    return envelope.data;
  }
}
