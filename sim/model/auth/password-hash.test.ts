import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deferredPasswordHash, hashPassword, verifyPassword } from './password-hash.ts';

describe('deferredPasswordHash', () => {
  it('is hashPassword computed on first read: same salt, hash, copies and JSON', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.uint8Array({ minLength: 16, maxLength: 16 }), (password, bytes) => {
        const salt = Buffer.from(bytes);
        const eager = hashPassword(password, salt);
        const lazy = deferredPasswordHash(password, salt);
        salt.fill(0); // the caller's buffer may be reused: the deferred hash keeps its own copy
        expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
        expect({ ...lazy }).toEqual(eager);
        expect(lazy.hash).toBe(eager.hash);
        expect(verifyPassword(password, lazy)).toBe(true);
        expect(verifyPassword(`${password}x`, lazy)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
