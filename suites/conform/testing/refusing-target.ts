import type { Target, TargetRequest, TargetResponse } from '../../targets/target.ts';

/**
 * For tests: a target that answers through another one (the simulator), except the requests `refuse`
 * picks, which it answers itself with a refusal envelope (HTTP 400, code 400, the text given), as a
 * server would that refuses a value the spec allows. Everything else, its control interface and
 * credentials included, is the inner target's.
 */
export class RefusingTarget implements Target {
  /** The requests refused so far. */
  readonly refusedRequests: TargetRequest[] = [];

  constructor(
    private readonly inner: Target,
    private readonly refuse: (req: TargetRequest) => string | undefined,
  ) {}

  get name(): string {
    return `${this.inner.name} (refusing)`;
  }
  get baseUrl(): string {
    return this.inner.baseUrl;
  }
  get capabilities(): Target['capabilities'] {
    return this.inner.capabilities;
  }
  get control(): Target['control'] {
    return this.inner.control;
  }
  get credentials(): Target['credentials'] {
    return this.inner.credentials;
  }
  get token(): string | undefined {
    return this.inner.token;
  }
  get signingSecret(): string | undefined {
    return this.inner.signingSecret;
  }

  login(): Promise<TargetResponse> {
    return this.inner.login();
  }

  async request(req: TargetRequest): Promise<TargetResponse> {
    const text = this.refuse(req);
    if (text === undefined) return this.inner.request(req);
    this.refusedRequests.push(req);
    const body = { code: 400, message: text, data: null };
    return {
      status: 400,
      headers: { 'content-type': 'application/json' },
      text: JSON.stringify(body),
      json: body,
      durationMs: 0,
      retries: 0,
    };
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
