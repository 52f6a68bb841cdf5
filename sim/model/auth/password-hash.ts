import { scryptSync, timingSafeEqual } from 'node:crypto';

/**
 * Passwords are kept as scrypt hashes with a per-user salt (computed on first use, see
 * `deferredPasswordHash`). The salt comes from the run's seeded generator, so a replay stores the
 * same bytes; the cost is modest because this protects simulated users, and a create should stay fast.
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

/**
 * The same hash as `hashPassword`, computed when it is first read (a login, a state file's journal)
 * rather than at the create: chaos runs create many users that nobody logs in as, and scrypt was
 * the largest single cost of a run. Until then the password is held in the model's memory, as the
 * request that carried it was; it is dropped once hashed. `hash` is an enumerable own property, so
 * the object copies and serializes as `hashPassword`'s does (tested against it).
 */
export function deferredPasswordHash(password: string, salt: Buffer): PasswordHash {
  let pending: string | undefined = password;
  let hash = '';
  const saltBytes = Buffer.from(salt);
  const out = { salt: salt.toString('hex') } as { salt: string; hash: string };
  Object.defineProperty(out, 'hash', {
    enumerable: true,
    get: (): string => {
      if (pending !== undefined) {
        hash = scryptSync(pending, saltBytes, KEY_LENGTH, COST).toString('hex');
        pending = undefined;
      }
      return hash;
    },
  });
  return out;
}

/** Compares in constant time with respect to the password's content. */
export function verifyPassword(password: string, stored: PasswordHash): boolean {
  const candidate = scryptSync(password, Buffer.from(stored.salt, 'hex'), KEY_LENGTH, COST);
  return timingSafeEqual(candidate, Buffer.from(stored.hash, 'hex'));
}
