import { describe, expect, it } from 'vitest';
import { CONTRACT } from '../../../contract/index.ts';
import type { Exchange } from '../../conform/exchange.ts';
import { checkAnswer, type Expectation } from './expectations.ts';
import { classify, type Answer } from './property-client.ts';
import { PropertyViolation, StepVerdict } from './violation.ts';

const endpoint = CONTRACT.find((e) => e.id === 'cluster.tenant.update')!;

function answer(status: number, body: Record<string, unknown>): Answer {
  const exchange: Exchange = {
    purpose: 'check',
    sent: { method: 'POST', path: endpoint.path },
    record: { method: 'POST', path: endpoint.path },
    durationMs: 1,
    response: { status, headers: {}, text: JSON.stringify(body), json: body, durationMs: 1, retries: 0 },
  };
  return { endpoint, exchange, ...classify(exchange) };
}

function violations(a: Answer, exp: Expectation): PropertyViolation[] {
  const v = new StepVerdict('INFO');
  checkAnswer(a, exp, v);
  return [...v.violations];
}

const base: Expectation = { allowed: ['ok'], assertion: 'endpoints.tenant.update', rule: 'r', says: 'it must succeed' };

describe('an answer against an expectation', () => {
  it('an outcome the spec does not allow is a violation of the rule, at its level, with the answer', () => {
    const [v] = violations(answer(200, { code: 1, message: 'nope', data: null }), base);
    expect([v.rule, v.assertion, v.level, v.endpointId]).toEqual(['r', 'endpoints.tenant.update', 'MUST', 'cluster.tenant.update']);
    expect(v.message).toBe('it must succeed, but got failure (HTTP 200, code 1, "nope")');
    expect(v.exchange).toBeDefined();
  });

  it('a successful write must answer data "success"', () => {
    expect(violations(answer(200, { code: 0, message: 'success', data: 'success' }), { ...base, successData: 'success' })).toEqual([]);
    expect(
      violations(answer(200, { code: 0, message: 'success', data: 'done' }), { ...base, successData: 'success' }).map((v) => v.rule),
    ).toEqual(['r.data']);
  });

  it('a refusal as invalid should name the parameter (SHOULD), a fixed code and text are checked', () => {
    const exp: Expectation = {
      allowed: ['invalid'],
      assertion: 'endpoints.tenant.update',
      rule: 'x',
      says: 's',
      namesParam: { param: 'config.max_topics', assertion: 'errors.case.rejected-body' },
    };
    expect(violations(answer(400, { code: 400, message: "invalid parameter 'config.max_topics'", data: null }), exp)).toEqual([]);
    expect(violations(answer(400, { code: 400, message: 'bad request', data: null }), exp).map((v) => [v.rule, v.level])).toEqual([
      ['x.names-param', 'SHOULD'],
    ]);
    const unknown: Expectation = {
      allowed: ['failure'],
      assertion: 'errors.case.tenant-update-unknown',
      rule: 'u',
      says: 's',
      codes: [1, 100],
      textIncludes: { text: 'not found', assertion: 'errors.case.tenant-update-unknown' },
    };
    expect(violations(answer(200, { code: 100, data: '', error: 'Tenant t Not Found' }), unknown)).toEqual([]);
    expect(violations(answer(404, { code: 404, message: 'gone', data: null }), unknown).map((v) => v.rule)).toEqual(['u.code', 'u.text']);
  });

  it('a step throws its strongest violation at or above the threshold only', () => {
    const info = new PropertyViolation('decision.non-ascii-text', 'e', 'i', 'info');
    const should = new PropertyViolation('errors.case.rejected-body', 'e', 's', 'should');
    expect([info.level, should.level]).toEqual(['INFO', 'SHOULD']);
    const all = new StepVerdict('INFO');
    all.add(info);
    all.add(should);
    expect(() => all.throwIfAny()).toThrow('should');
    const mustOnly = new StepVerdict('MUST');
    mustOnly.add(info);
    mustOnly.add(should);
    expect(() => mustOnly.throwIfAny()).not.toThrow();
  });
});
