import { isRecord } from '../../model/api/json-guards.ts';
import { verifyPassword, type PasswordHash } from '../../model/auth/password-hash.ts';
import type { Users } from '../../model/broker/users.ts';
import type { ModelWrite } from '../../admin-api/admin-app.ts';

/**
 * MQTT users' passwords out of the state file. A user create's body (`/api/cluster/user/create`)
 * carries the password in clear, but the model keeps only a salted hash, drawn from the seeded
 * generator (sim/model/broker/users.ts), so replaying the create needs that hash, not the password: the
 * journaled body holds the hash in place of the password, and the replay re-runs the create with a
 * stand-in password while the model stores the recorded hash (Users.useRecordedHash, which also
 * checks the salt drawn again is the recorded one). The answer to a create is "success", nothing
 * derived from the password, so the replay's answer check is unchanged. MQTT CONNECT operations are
 * journaled without credentials (sim/model/cluster-ops/wire-ops.ts): they were checked before the op.
 */

/** The body field that stands for the password: the stored {salt, hash}. */
const SEALED = 'password_scrypt';
/** Marks a body whose password matched no stored hash (it created no user): kept out, not replayable. */
const WITHHELD = 'password_withheld';
/** What the replay sends as the password; within the 1-128 characters the endpoint accepts. */
const STAND_IN = 'replayed-from-stored-hash';

/** Top-level fields of a JSON object body, or undefined for any other body. */
function fieldsOf(body: string | undefined, marker: string): Record<string, unknown> | undefined {
  // Most journaled bodies have nothing to do with passwords: skip them without parsing.
  if (body === undefined || !body.includes(marker)) return undefined;
  try {
    const value: unknown = JSON.parse(body);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `fields` with the field `from` renamed to `to` (in place, so the order stays) and given `value`. */
function replaceField(fields: Record<string, unknown>, from: string, to: string, value: unknown): string {
  return JSON.stringify(Object.fromEntries(Object.entries(fields).map(([k, v]) => (k === from ? [to, value] : [k, v]))));
}

/**
 * The body to journal for a request that changed the model: a clear `password` replaced by the hash
 * the model stored for that tenant's user (checked to be that password's), or withheld when none is.
 * Any other body is returned as it is. Call it right after the write, before another one runs.
 */
export function sealPassword(body: string | undefined, users: Pick<Users, 'get'>): string | undefined {
  const fields = fieldsOf(body, '"password"');
  if (!fields || typeof fields.password !== 'string') return body;
  const { tenant, username, password } = fields;
  const user = typeof tenant === 'string' && typeof username === 'string' ? users.get(tenant, username) : undefined;
  if (user && verifyPassword(password, user.password)) {
    return replaceField(fields, 'password', SEALED, { salt: user.password.salt, hash: user.password.hash });
  }
  return replaceField(fields, 'password', WITHHELD, true);
}

/** `write` with its body sealed (see sealPassword). */
export function sealedWrite(write: ModelWrite, users: Pick<Users, 'get'>): ModelWrite {
  const body = sealPassword(write.body, users);
  return body === write.body ? write : { ...write, ...(body !== undefined ? { body } : {}) };
}

export type UnsealedBody =
  { kind: 'plain'; body: string | undefined } | { kind: 'sealed'; body: string; hash: PasswordHash } | { kind: 'withheld' };

const isHex = (x: unknown): x is string => typeof x === 'string' && /^(?:[0-9a-f]{2})+$/.test(x);

/** A journaled body as the replay sends it: a sealed password becomes the stand-in plus the hash to store. */
export function unsealForReplay(body: string | undefined): UnsealedBody {
  const fields = fieldsOf(body, '"password_');
  if (fields && fields[WITHHELD] === true) return { kind: 'withheld' };
  const sealed = fields?.[SEALED];
  if (!fields || !isRecord(sealed) || !isHex(sealed.salt) || !isHex(sealed.hash)) return { kind: 'plain', body };
  return { kind: 'sealed', body: replaceField(fields, SEALED, 'password', STAND_IN), hash: { salt: sealed.salt, hash: sealed.hash } };
}
