import { describe, expect, it } from 'vitest';
import { decodeState, encodeState, StateFileError, type ServeState } from './state-file.ts';

const STATE: ServeState = {
  mqsimVersion: '0.1.0',
  options: { seed: '1', nodes: 3, workload: 'none', epochMs: Date.UTC(2026, 0, 1), envelope: 'A', deviations: [], admin: { username: 'admin', password: 'admin', tokenTtlHours: 8 } },
  virtualNow: Date.UTC(2026, 0, 1) + 5000,
  writes: [{ source: 'api', at: Date.UTC(2026, 0, 1) + 10, node: 1, method: 'POST', url: '/api/cluster/tenant/create', body: '{"tenant_name":"é"}', status: 200, answer: '0123456789abcdef' }],
};

describe('state file format', () => {
  it('round-trips, non-ASCII included (the length is in bytes)', () => {
    expect(decodeState(encodeState(STATE), 'f')).toEqual(STATE);
  });

  it.each([
    ['empty', () => '', /not an mqsim serve state file/],
    ['other JSON', () => '{"name":"x"}', /some other JSON/],
    ['bad header', (t: string) => t.replace(/sha256=\w+/, 'sha256=xyz'), /damaged state file header/],
    ['version 0', (t: string) => t.replace(' 1 sha256', ' 0 sha256'), /unknown state format 0/],
    ['newer version', (t: string) => t.replace(' 1 sha256', ' 9 sha256'), /newer mqsim \(state format 9/],
    ['truncated', (t: string) => t.slice(0, -1), /truncated or damaged/],
    ['flipped byte', (t: string) => t.replace('"seed":"1"', '"seed":"2"'), /is corrupt/],
  ])('refuses %s', (_name, make, message) => {
    expect(() => decodeState(make(encodeState(STATE)), 'f')).toThrow(StateFileError);
    expect(() => decodeState(make(encodeState(STATE)), 'f')).toThrow(message);
  });

  it('refuses a well-formed file whose writes go back in time', () => {
    const bad = { ...STATE, writes: [STATE.writes[0], { ...STATE.writes[0], at: STATE.writes[0].at - 1 }] };
    expect(() => decodeState(encodeState(bad), 'f')).toThrow(/write 2 goes back in virtual time/);
  });
});
