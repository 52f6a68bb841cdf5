import { ForwardingTarget, type Target, type TargetRequest, type TargetResponse } from '../../targets/target.ts';

/**
 * For tests: a target that answers through another one (the simulator), except the requests `refuse`
 * picks, which it answers itself with a refusal envelope (HTTP 400, code 400, the text given), as a
 * server would that refuses a value the spec allows. Everything else, its control interface and
 * credentials included, is the inner target's.
 */
export class RefusingTarget extends ForwardingTarget {
  /** The requests refused so far. */
  readonly refusedRequests: TargetRequest[] = [];

  constructor(
    inner: Target,
    private readonly refuse: (req: TargetRequest) => string | undefined,
  ) {
    super(inner);
  }

  override get name(): string {
    return `${this.inner.name} (refusing)`;
  }

  override async request(req: TargetRequest): Promise<TargetResponse> {
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
}
