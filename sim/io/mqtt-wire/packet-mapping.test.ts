import { describe, expect, it } from 'vitest';
import { payloadOf, publishPacketOf, readConnect, readPublish } from './packet-mapping.ts';
import { LOGIN_REFUSAL_CODES } from './reason-codes.ts';

describe('packet mapping', () => {
  it('reads session rules: MQTT 3 clean → expiry 0, persistent → the default; MQTT 5 its property, 0xFFFFFFFF unbounded', () => {
    const ok = (r: ReturnType<typeof readConnect>) => (r.ok ? r.request : undefined);
    expect(ok(readConnect({ cmd: 'connect', clientId: 'a', protocolVersion: 4, clean: true }, 3600))).toMatchObject({
      cleanStart: true,
      sessionExpiry: 0,
    });
    expect(ok(readConnect({ cmd: 'connect', clientId: 'a', protocolVersion: 4, clean: false }, 3600))).toMatchObject({
      cleanStart: false,
      sessionExpiry: 3600,
    });
    expect(ok(readConnect({ cmd: 'connect', clientId: 'a', protocolVersion: 5, clean: true }, 3600))).toMatchObject({ sessionExpiry: 0 });
    expect(
      ok(
        readConnect(
          { cmd: 'connect', clientId: 'a', protocolVersion: 5, clean: false, properties: { sessionExpiryInterval: 0xffffffff } },
          3600,
        ),
      )?.sessionExpiry,
    ).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('refuses empty client ids without a clean session (MQTT 3.1.1) and on MQTT 3.1, zero Receive Maximum and wildcard will topics', () => {
    expect(readConnect({ cmd: 'connect', clientId: '', protocolVersion: 4, clean: false }, 0)).toMatchObject({
      ok: false,
      codes: LOGIN_REFUSAL_CODES.identifierRejected,
    });
    expect(readConnect({ cmd: 'connect', clientId: '', protocolVersion: 3, clean: true }, 0)).toMatchObject({ ok: false });
    expect(readConnect({ cmd: 'connect', clientId: '', protocolVersion: 4, clean: true }, 0).ok).toBe(true);
    expect(readConnect({ cmd: 'connect', clientId: '', protocolVersion: 5, clean: false }, 0).ok).toBe(true);
    expect(readConnect({ cmd: 'connect', clientId: 'a', protocolVersion: 5, properties: { receiveMaximum: 0 } }, 0)).toMatchObject({
      ok: false,
      codes: LOGIN_REFUSAL_CODES.protocolError,
    });
    expect(readConnect({ cmd: 'connect', clientId: 'a', protocolVersion: 4, will: { topic: 'a/#', payload: 'x' } }, 0)).toMatchObject({
      ok: false,
      codes: LOGIN_REFUSAL_CODES.topicNameInvalid,
    });
  });

  it('maps an MQTT 5 will with its delay and properties, keeping binary payload bytes', () => {
    const r = readConnect(
      {
        cmd: 'connect',
        clientId: 'w',
        protocolVersion: 5,
        will: {
          topic: 'w',
          payload: Buffer.from([0xff]),
          qos: 1,
          retain: true,
          properties: { willDelayInterval: 30, contentType: 'bin', userProperties: { k: 'v' } },
        },
      },
      0,
    );
    expect(r.ok && r.request.lastWill).toMatchObject({
      topic: 'w',
      qos: 1,
      retain: true,
      properties: { delay_interval: 30, content_type: 'bin', user_properties: [{ key: 'k', value: 'v' }] },
      extras: { bytes: Buffer.from([0xff]), properties: { contentType: 'bin', userProperties: { k: 'v' } } },
    });
  });

  it('keeps bytes only when the payload is not UTF-8 text, and forwards properties only for MQTT 5', () => {
    expect(payloadOf(Buffer.from('héllo'))).toEqual({ text: 'héllo' });
    expect(payloadOf(Buffer.from([0xc3]))).toMatchObject({ bytes: Buffer.from([0xc3]) });
    const packet = {
      cmd: 'publish' as const,
      topic: 't',
      payload: Buffer.from('x'),
      qos: 1 as const,
      dup: false,
      retain: false,
      properties: { contentType: 'text/plain' },
    };
    expect(readPublish(packet, 5)).toEqual({ payload: 'x', extras: { properties: { contentType: 'text/plain' } } });
    expect(readPublish(packet, 4)).toEqual({ payload: 'x' });
  });

  it('lowers the message expiry by the time waited and gives nothing once expired', () => {
    const m = { topic: 't', payload: 'x', qos: 1 as const, retain: false, subscriptionIdentifier: 4, expiresAt: 10_000 };
    expect(publishPacketOf(m, 5, 4_500, 7, true)).toMatchObject({
      messageId: 7,
      dup: true,
      properties: { messageExpiryInterval: 6, subscriptionIdentifier: 4 },
    });
    expect(publishPacketOf(m, 5, 10_000, 7, false)).toBeUndefined();
    expect(publishPacketOf(m, 4, 10_001, 7, false)).toBeUndefined();
    expect(publishPacketOf(m, 4, 0, 7, false)?.properties).toBeUndefined();
  });
});
