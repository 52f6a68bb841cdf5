import { describe, expect, it } from 'vitest';
import { fcSeedOf, formatPropertyPath, parsePropertyPath, replayCommand } from './property-path.ts';

describe('--property-path', () => {
  it('round-trips property, fast-check path and replayPath (which may hold + and /)', () => {
    for (const p of [
      { propertyId: 'model.users', fcPath: '3:1:0', replayPath: 'CC+/J:F' },
      { propertyId: 'requests.cluster.user.list', fcPath: '12' },
    ]) {
      expect(parsePropertyPath(formatPropertyPath(p))).toEqual(p);
    }
    expect(formatPropertyPath({ propertyId: 'model.acl.must-only', fcPath: '0:2', replayPath: 'AB:C' })).toBe(
      'model.acl.must-only~0:2~AB:C',
    );
  });

  it('refuses text that is not a property path, with the expected form', () => {
    for (const bad of ['', 'model.users', 'model.users~x', '~1:2', 'a~1~b~c'])
      expect(() => parsePropertyPath(bad)).toThrow(/<property>~<path>/);
  });

  it('prints a replay command with the path quoted for the shell', () => {
    expect(replayCommand('sim', 7, 'model.users~1:0~AB:C')).toBe(
      "mqsim conform --target sim --seed 7 --property-path 'model.users~1:0~AB:C'",
    );
    expect(replayCommand('http://h:1', 7, 'p~1', 'admin')).toBe(
      "mqsim conform --target http://h:1 --seed 7 --property-path 'p~1' --username 'admin' --password '…'",
    );
    // The run's target flags (a simulator of another size, the MQTT listener) come with it.
    expect(replayCommand('sim', 7, 'p~1', undefined, ['--nodes', '5', '--mqtt', "'mqtt://127.0.0.1:1883'"])).toBe(
      "mqsim conform --target sim --nodes 5 --mqtt 'mqtt://127.0.0.1:1883' --seed 7 --property-path 'p~1'",
    );
  });

  it('maps any seed to a 32-bit fast-check seed, the same every time', () => {
    expect(fcSeedOf(1)).toBe(1);
    expect(fcSeedOf(2 ** 32 + 5)).toBe(5);
    expect(fcSeedOf(2 ** 31)).toBe(-(2 ** 31));
    expect(fcSeedOf(Number.MAX_SAFE_INTEGER)).toBe(fcSeedOf(Number.MAX_SAFE_INTEGER));
  });
});
