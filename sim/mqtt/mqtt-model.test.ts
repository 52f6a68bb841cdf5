import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientKey, plainClientKey } from './mqtt-model.ts';

describe('clientKey', () => {
  it('is plainClientKey, asked again and again in any order', () => {
    const pairs = fc.array(fc.tuple(fc.constantFrom('default', 'acme', 'a\u0000b', ''), fc.string({ maxLength: 6 })), {
      minLength: 1,
      maxLength: 50,
    });
    fc.assert(
      fc.property(pairs, (asked) => {
        for (const [tenant, clientId] of [...asked, ...asked.slice().reverse()]) {
          expect(clientKey(tenant, clientId)).toBe(plainClientKey(tenant, clientId));
        }
      }),
      { numRuns: 500 },
    );
  });
});
