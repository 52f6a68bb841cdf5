import { describe, expect, it } from 'vitest';
import { parseSlViolations } from './sl-violations.ts';

const requestViolation = {
  location: ['request', 'query', 'limit'],
  severity: 'Error',
  code: 'type',
  message: 'Request query parameter limit must be integer',
};
const responseViolation = {
  location: ['response', 'body', 'code'],
  severity: 'Error',
  code: 'const',
  message: 'Response body property code must be equal to constant',
};

describe('parseSlViolations', () => {
  it('reads no header as no violation', () => {
    expect(parseSlViolations(undefined)).toEqual({ request: [], response: [], truncated: false });
  });

  it('splits request and response violations', () => {
    const parsed = parseSlViolations(JSON.stringify([requestViolation, responseViolation, responseViolation]));
    expect(parsed.request).toEqual([requestViolation]);
    expect(parsed.response).toHaveLength(2);
    expect(parsed.truncated).toBe(false);
  });

  it('never reads a header Prism cut as clean: every side it mentions counts', () => {
    const whole = JSON.stringify([requestViolation, responseViolation]);
    // Cut inside the response violation: only its start is left.
    const cut = `Too many violations! ${whole.slice(0, whole.indexOf('"severity"', whole.indexOf('"response"')))}`;
    const parsed = parseSlViolations(cut);
    expect(parsed.truncated).toBe(true);
    expect(parsed.request).toEqual([requestViolation]);
    expect(parsed.response).toHaveLength(1);
  });

  it('counts a header it cannot read as a response violation', () => {
    for (const header of ['{"location":"x"}', 'not json']) {
      const parsed = parseSlViolations(header);
      expect(parsed.response).toHaveLength(1);
      expect(parsed.response[0].message).toMatch(/not a list of violations/);
    }
  });
});
