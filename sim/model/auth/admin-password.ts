import { scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { isRecord } from '../api/json-guards.ts';

/**
 * The administrator's password as `mqsim serve` keeps it (in memory and in its state file): a salted
 * scrypt hash with its cost written next to it, so a stronger cost later still reads older files.
 * Unlike the simulated MQTT users' hashes (password-hash.ts), this one guards the real admin API of
 * a server that may listen beyond loopback, so it costs more (about 0.1 s) and its salt comes from
 * the operating system's generator, drawn by the caller (the model never draws real randomness).
 */
export interface AdminPasswordHash {
  scheme: 'scrypt';
  /** scrypt cost N (a power of two), block size r, parallelism p. */
  n: number;
  r: number;
  p: number;
  /** Hex. */
  salt: string;
  hash: string;
}

const KEY_LENGTH = 32;
const COST = { n: 2 ** 15, r: 8, p: 1 } as const;

const options = (h: Pick<AdminPasswordHash, 'n' | 'r' | 'p'>): ScryptOptions => ({
  N: h.n,
  r: h.r,
  p: h.p,
  // scrypt needs 128 * N * r bytes; the default ceiling (32 MiB) is exactly N = 2^15, r = 8.
  maxmem: 256 * h.n * h.r,
});

export function hashAdminPassword(password: string, salt: Buffer): AdminPasswordHash {
  const hash = scryptSync(password, salt, KEY_LENGTH, options(COST));
  return { scheme: 'scrypt', ...COST, salt: salt.toString('hex'), hash: hash.toString('hex') };
}

/** Checks a password against a stored hash off the event loop, in constant time in its content. */
export function verifyAdminPassword(password: string, stored: AdminPasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'hex');
  return new Promise((resolve, reject) =>
    scrypt(password, Buffer.from(stored.salt, 'hex'), expected.length, options(stored), (err, candidate) =>
      err ? reject(err) : resolve(timingSafeEqual(candidate, expected)),
    ),
  );
}

const HEX = /^(?:[0-9a-f]{2})+$/;

/**
 * A stored hash read from a file, checked before use: the cost is bounded too, since a file claiming
 * N = 2^30 would make every login allocate 128 GiB.
 */
export function isAdminPasswordHash(value: unknown): value is AdminPasswordHash {
  if (!isRecord(value) || value.scheme !== 'scrypt') return false;
  const { n, r, p, salt, hash } = value;
  const powerOfTwo =
    Number.isInteger(n) && (n as number) >= 2 ** 10 && (n as number) <= 2 ** 20 && ((n as number) & ((n as number) - 1)) === 0;
  const inRange = (x: unknown, max: number): boolean => Number.isInteger(x) && (x as number) >= 1 && (x as number) <= max;
  return (
    powerOfTwo &&
    inRange(r, 32) &&
    inRange(p, 16) &&
    typeof salt === 'string' &&
    HEX.test(salt) &&
    salt.length >= 32 &&
    typeof hash === 'string' &&
    HEX.test(hash) &&
    hash.length >= 32
  );
}
