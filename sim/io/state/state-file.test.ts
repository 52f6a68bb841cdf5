import { describe, expect, it } from 'vitest';
import { hashAdminPassword } from '../../model/auth/admin-password.ts';
import { decodeState, encodeState, journaledMqtt, StateFileError, type ServeState } from './state-file.ts';

const STATE: ServeState = {
  mqsimVersion: '0.1.0',
  options: {
    seed: '1',
    nodes: 3,
    workload: 'none',
    epochMs: Date.UTC(2026, 0, 1),
    envelope: 'A',
    deviations: [],
    admin: { username: 'admin', password: 'admin', tokenTtlHours: 8 },
  },
  virtualNow: Date.UTC(2026, 0, 1) + 5000,
  writes: [
    {
      source: 'api',
      at: Date.UTC(2026, 0, 1) + 10,
      node: 1,
      method: 'POST',
      url: '/api/cluster/tenant/create',
      body: '{"tenant_name":"é"}',
      status: 200,
      answer: '0123456789abcdef',
    },
  ],
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

  it('keeps MQTT listener operations (source mqtt) and refuses an unknown source', () => {
    const mqtt = {
      ...STATE,
      writes: [...STATE.writes, journaledMqtt(STATE.writes[0].at + 5, 2, 'publish', '{"op":"publish"}', '{"ok":true}')],
    };
    expect(decodeState(encodeState(mqtt), 'f').writes[1]).toEqual({
      source: 'mqtt',
      at: STATE.writes[0].at + 5,
      node: 2,
      method: 'MQTT',
      url: 'publish',
      body: '{"op":"publish"}',
      status: 200,
      answer: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const foreign = { ...STATE, writes: [{ ...STATE.writes[0], source: 'amqp' as never }] };
    expect(() => decodeState(encodeState(foreign), 'f')).toThrow(/write 1 is malformed/);
  });

  it('reads the admin as a password hash (this version) or a clear password (older files), and nothing else', () => {
    const passwordHash = hashAdminPassword('pw', Buffer.alloc(16, 1));
    const hashed = { ...STATE, options: { ...STATE.options, admin: { username: 'admin', passwordHash, tokenTtlHours: 8 } } };
    expect(decodeState(encodeState(hashed), 'f')).toEqual(hashed);
    for (const admin of [
      { username: 'admin', tokenTtlHours: 8 },
      { username: 'admin', passwordHash: { ...passwordHash, n: 2 ** 31 }, tokenTtlHours: 8 },
      { username: 'admin', passwordHash: 'pw', tokenTtlHours: 8 },
    ]) {
      const bad = { ...STATE, options: { ...STATE.options, admin } } as unknown as ServeState;
      expect(() => decodeState(encodeState(bad), 'f'), JSON.stringify(admin)).toThrow(
        /options\.admin\.passwordHash is missing or malformed/,
      );
    }
  });

  it('refuses a well-formed file whose writes go back in time', () => {
    const bad = { ...STATE, writes: [STATE.writes[0], { ...STATE.writes[0], at: STATE.writes[0].at - 1 }] };
    expect(() => decodeState(encodeState(bad), 'f')).toThrow(/write 2 goes back in virtual time/);
  });
});
