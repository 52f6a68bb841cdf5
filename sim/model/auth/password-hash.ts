import { scryptSync, timingSafeEqual } from 'node:crypto';

/**
 * Passwords are kept only as scrypt hashes with a per-user salt. The salt comes from the run's seeded
 * generator, so a replay stores the same bytes; the cost is modest because this protects simulated
 * users, and a create should stay fast.
 */
const KEY_LENGTH = 32;
const COST = { N: 1024, r: 8, p: 1 } as const;

export interface PasswordHash {
  readonly salt: string;
  readonly hash: string;
}

export function hashPassword(password: string, salt: Buffer): PasswordHash {
  const hash = scryptSync(password, salt, KEY_LENGTH, COST);
  return { salt: salt.toString('hex'), hash: hash.toString('hex') };
}

/** Compares in constant time with respect to the password's content. */
export function verifyPassword(password: string, stored: PasswordHash): boolean {
  const candidate = scryptSync(password, Buffer.from(stored.salt, 'hex'), KEY_LENGTH, COST);
  return timingSafeEqual(candidate, Buffer.from(stored.hash, 'hex'));
}
