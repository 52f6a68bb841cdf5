import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../conform/exchange.ts';
import { CONTRACT } from '../../../contract/index.ts';
import type { Target, TargetResponse } from '../../targets/target.ts';
import { classify, PathPacer, PropertyClient } from './property-client.ts';
import { PropertyAbort, StepVerdict } from './violation.ts';

const ex = (status: number, body: unknown): Exchange => ({
  purpose: 'check',
  sent: { method: 'GET', path: '/x' },
  record: { method: 'GET', path: '/x' },
  durationMs: 1,
  response: {
    status,
    headers: {},
    text: typeof body === 'string' ? body : JSON.stringify(body),
    json: typeof body === 'string' ? undefined : body,
    durationMs: 1,
    retries: 0,
  },
});

describe('answers as outcomes', () => {
  it('tells success, parameter errors, other refusals, server errors and broken bodies apart', () => {
    expect(classify(ex(200, { code: 0, message: 'success', data: 'success' })).outcome).toBe('ok');
    expect(classify(ex(200, { code: 0, data: [], error: null })).outcome).toBe('ok');
    expect(classify(ex(400, 'Failed to deserialize query string')).outcome).toBe('invalid');
    expect(classify(ex(200, { code: 400, message: "invalid 'x'", data: null })).outcome).toBe('invalid');
    expect(classify(ex(200, { code: 100, data: '', error: 'Tenant t not found' })).outcome).toBe('failure');
    expect(classify(ex(404, { code: 404, message: 'no', data: null })).outcome).toBe('failure');
    expect(classify(ex(500, { code: 500, message: 'boom', data: null })).outcome).toBe('server-error');
    expect(classify(ex(200, 'plain text')).outcome).toBe('malformed');
    expect(classify(ex(401, { code: 401, message: 'no', data: null })).outcome).toBe('unauthorized');
    expect(classify({ ...ex(200, {}), response: undefined, error: 'ECONNRESET' }).outcome).toBe('no-answer');
  });
});

describe('pacing per path', () => {
  it('lets a burst through, then spaces requests at the rate, per path', async () => {
    let now = 0;
    const slept: number[] = [];
    const pacer = new PathPacer(
      10,
      2,
      () => now,
      async (ms) => {
        slept.push(ms);
        now += ms;
      },
    );
    await pacer.take('/a');
    await pacer.take('/a');
    await pacer.take('/b');
    expect(slept).toEqual([]);
    await pacer.take('/a');
    expect(slept).toEqual([100]);
    const off = new PathPacer(0);
    await off.take('/a');
  });
});

function fakeTarget(answers: { status: number; body: unknown }[]): Target & { sent: number } {
  const t = {
    name: 'fake',
    baseUrl: 'http://fake',
    capabilities: { remotePeer: { available: false }, loopback: true },
    sent: 0,
    login: async () => ({}) as TargetResponse,
    close: async () => {},
    async request(): Promise<TargetResponse> {
      const a = answers[Math.min(t.sent++, answers.length - 1)];
      return { status: a.status, headers: {}, text: JSON.stringify(a.body), json: a.body, durationMs: 1, retries: 0 };
    },
  };
  return t;
}

describe('the property client', () => {
  const list = CONTRACT.find((e) => e.id === 'cluster.user.list')!;
  const limited = { status: 429, body: { code: 429, message: 'rate limit', data: null } };
  const ok = { status: 200, body: { code: 0, message: 'success', data: { data: [], total_count: 0 } } };

  it('waits longer when the target keeps answering 429, then goes on', async () => {
    const waits: number[] = [];
    const target = fakeTarget([limited, limited, ok]);
    const client = new PropertyClient(target, new PathPacer(0), undefined, [5, 10, 20], async (ms) => void waits.push(ms));
    const a = await client.call(list, {});
    expect([a.outcome, target.sent, waits]).toEqual(['ok', 3, [5, 10]]);
  });

  it('gives up with "not observable" (never a deviation) when 429 does not stop, or on 401', async () => {
    const client = new PropertyClient(fakeTarget([limited]), new PathPacer(0), undefined, [1], async () => {});
    await expect(client.call(list, {})).rejects.toBeInstanceOf(PropertyAbort);
    const denied = new PropertyClient(fakeTarget([{ status: 401, body: { code: 401, message: 'no', data: null } }]), new PathPacer(0));
    await expect(denied.call(list, {})).rejects.toThrow(/answered 401/);
  });

  it('holds every JSON answer to the envelope rules and counts outcomes per property and in total', async () => {
    const parent = new PropertyClient(fakeTarget([{ status: 200, body: { code: 1, message: '', data: {} } }]), new PathPacer(0));
    const child = parent.child();
    const v = new StepVerdict('INFO');
    await child.call(list, {}, v);
    expect(v.violations.map((x) => [x.rule, x.level])).toEqual([['envelope', 'MUST']]);
    expect(child.outcomes).toEqual({ failure: 1 });
    expect(parent.summary()).toBe('1 requests (1 failure)');
  });
});
