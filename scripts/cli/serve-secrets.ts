import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { hashAdminPassword, verifyAdminPassword, type AdminPasswordHash } from '../../sim/model/auth/admin-password.ts';
import { DEFAULT_ADMIN_PASSWORD, DEVELOPMENT_JWT_SECRET } from '../../sim/model/nodes/cluster-options.ts';
import type { RecordedAdmin } from '../../sim/io/state/state-file.ts';
import { UsageError } from './usage-error.ts';

/**
 * Where `mqsim serve` takes its two secrets from, and when it refuses to start with the built-in
 * ones. A secret comes from, first to last: its flag (visible in `ps`, so for local use), its file
 * flag (`--admin-password-file PATH`, trailing newline dropped), its environment variable, else the
 * built-in default. Giving both the flag and the file is a usage error: one of them would be ignored.
 */

/** A secret given this start, and where from (named in messages, never the value). */
export interface GivenSecret {
  value: string;
  from: string;
}

interface SecretKind {
  flag: string;
  fileFlag: string;
  env: string;
  what: string;
}

export const ADMIN_PASSWORD: SecretKind = {
  flag: '--admin-password',
  fileFlag: '--admin-password-file',
  env: 'MQSIM_ADMIN_PASSWORD',
  what: 'admin password',
};
export const JWT_SECRET: SecretKind = {
  flag: '--jwt-secret',
  fileFlag: '--jwt-secret-file',
  env: 'MQSIM_JWT_SECRET',
  what: 'token signing secret',
};

/** The secret of `kind` given this start (flag > file > environment), or undefined for the default. */
export function givenSecret(
  kind: SecretKind,
  flagValue: string | undefined,
  filePath: string | undefined,
  env: NodeJS.ProcessEnv,
): GivenSecret | undefined {
  if (flagValue !== undefined && filePath !== undefined)
    throw new UsageError(`give the ${kind.what} once: ${kind.flag} or ${kind.fileFlag}, not both`);
  if (flagValue !== undefined) {
    if (flagValue === '') throw new UsageError(`${kind.flag} is empty; give a ${kind.what} or leave the option out`);
    return { value: flagValue, from: kind.flag };
  }
  if (filePath !== undefined) return { value: readSecretFile(kind, filePath), from: `${kind.fileFlag} ${filePath}` };
  const fromEnv = env[kind.env];
  if (fromEnv === undefined) return undefined;
  if (fromEnv === '') throw new UsageError(`${kind.env} is set but empty; give a ${kind.what} in it or unset it`);
  return { value: fromEnv, from: kind.env };
}

function readSecretFile(kind: SecretKind, path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UsageError(`${kind.fileFlag} ${path} cannot be read (${reason}); give a readable file holding the ${kind.what}`);
  }
  // Editors and `echo` end a file with a newline; it is not part of the secret.
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw new UsageError(`${kind.fileFlag} ${path} is empty; put the ${kind.what} in it`);
  return value;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/**
 * Whether `--host` keeps the listeners to this machine: `localhost`, any 127.x.y.z, `::1` (and the
 * IPv4-mapped ::ffff:127.x.y.z). Anything else is reachable from elsewhere, the wildcards 0.0.0.0 and
 * :: included; so is any other host name (it is not resolved: a name can point anywhere).
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost') return true;
  const family = isIP(h);
  return family !== 0 && LOOPBACK.check(h, family === 4 ? 'ipv4' : 'ipv6');
}

/** The admin password this start uses, as its hash, and what to tell the operator about it. */
export interface AdminPassword {
  hash: AdminPasswordHash;
  isDefault: boolean;
  /** The state file's hash is replaced (a new password was given, or the file held it in clear). */
  changed: boolean;
  /** The password itself, when this start knows it (see ServeSecrets.password). */
  clear?: string;
}

/**
 * Fresh start: the given password or the default, hashed with a new salt. Resumed start: the
 * recorded one unless another is given, which then replaces it: the password decides nothing in the
 * model (a login is not journaled), and an operator moving a run off loopback must be able to
 * replace the default it was started with. An older file's clear password is hashed now.
 */
export async function adminPassword(given: GivenSecret | undefined, recorded: RecordedAdmin | undefined): Promise<AdminPassword> {
  const fresh = (value: string): AdminPassword => ({
    hash: hashAdminPassword(value, randomBytes(16)),
    isDefault: value === DEFAULT_ADMIN_PASSWORD,
    changed: recorded !== undefined,
    clear: value,
  });
  const kept = recorded?.passwordHash;
  if (!kept) return fresh(given?.value ?? recorded?.password ?? DEFAULT_ADMIN_PASSWORD);
  if (given && !(await verifyAdminPassword(given.value, kept))) return fresh(given.value);
  const isDefault = await verifyAdminPassword(DEFAULT_ADMIN_PASSWORD, kept);
  const clear = given?.value ?? (isDefault ? DEFAULT_ADMIN_PASSWORD : undefined);
  return { hash: kept, isDefault, changed: false, ...(clear !== undefined ? { clear } : {}) };
}

function jwtSecretIsDefault(given: GivenSecret | undefined): boolean {
  return given === undefined || given.value === DEVELOPMENT_JWT_SECRET;
}

/**
 * Beyond loopback, a built-in secret lets anyone who reads mqsim's source log in or forge a token:
 * refused (one sentence, for a usage error), unless `--insecure-defaults`, which gets a warning line
 * instead, on every start. Returns the warning, or undefined when nothing needs saying.
 */
export function checkDefaults(args: { host: string; adminDefault: boolean; jwtDefault: boolean; insecure: boolean }): string | undefined {
  const { host, adminDefault, jwtDefault, insecure } = args;
  if (isLoopbackHost(host) || !(adminDefault || jwtDefault)) return undefined;
  const inUse = [
    ...(adminDefault ? [`the admin password is the built-in default "${DEFAULT_ADMIN_PASSWORD}"`] : []),
    ...(jwtDefault ? ["the token signing secret is the development one from mqsim's source"] : []),
  ].join(' and ');
  if (insecure)
    return `WARNING (--insecure-defaults): listening on ${host}, beyond loopback, while ${inUse}: anyone who can reach these ports can administer the cluster`;
  const howTo = [
    ...(adminDefault ? [`${ADMIN_PASSWORD.env} or ${ADMIN_PASSWORD.fileFlag} PATH`] : []),
    ...(jwtDefault ? [`${JWT_SECRET.env} or ${JWT_SECRET.fileFlag} PATH`] : []),
  ].join(', and ');
  throw new UsageError(`--host ${host} listens beyond loopback while ${inUse}; set ${howTo}, or pass --insecure-defaults to start anyway`);
}

/** What `mqsim serve` was given that bears on its secrets. */
export interface SecretOptions {
  host: string;
  adminPassword?: string;
  adminPasswordFile?: string;
  jwtSecret?: string;
  jwtSecretFile?: string;
  insecureDefaults?: boolean;
  state?: string;
}

export interface ServeSecrets {
  passwordHash: AdminPasswordHash;
  /**
   * The admin password in clear when this start knows it, for the server's memory only (never the
   * state file): login checks the hash; only the deviation that leaks it in config get reads it.
   */
  password?: string;
  jwtSecret: string;
  /** Lines for stderr at start (a warning, what changed in the state file). */
  notes: string[];
  /** The state file holds something to rewrite now (a secret in clear, a replaced password). */
  rewrite: boolean;
}

/**
 * The secrets of one start, checked (usage errors: a bad source, the built-in ones beyond loopback).
 * `recorded` is the state file's admin, when resuming one.
 */
export async function serveSecrets(
  opts: SecretOptions,
  recorded: RecordedAdmin | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServeSecrets> {
  const givenPassword = givenSecret(ADMIN_PASSWORD, opts.adminPassword, opts.adminPasswordFile, env);
  const givenJwt = givenSecret(JWT_SECRET, opts.jwtSecret, opts.jwtSecretFile, env);
  const password = await adminPassword(givenPassword, recorded);
  const jwtDefault = jwtSecretIsDefault(givenJwt);
  const warning = checkDefaults({
    host: opts.host,
    adminDefault: password.isDefault,
    jwtDefault,
    insecure: opts.insecureDefaults === true,
  });
  const notes = warning ? [warning] : [];
  if (recorded?.passwordHash && password.changed)
    notes.push(`the admin password from ${givenPassword?.from} differs from the one recorded in ${opts.state}; it replaces it`);
  if (recorded?.password !== undefined) notes.push(`${opts.state} held the admin password in clear; it now keeps a salted hash of it`);
  if (recorded?.jwtSecret !== undefined)
    notes.push(
      `${opts.state} held the token signing secret, which state files no longer keep: it is dropped, and this start signs with ${givenJwt ? `the one from ${givenJwt.from}` : 'the built-in development secret'}`,
    );
  return {
    passwordHash: password.hash,
    ...(password.clear !== undefined ? { password: password.clear } : {}),
    jwtSecret: givenJwt?.value ?? DEVELOPMENT_JWT_SECRET,
    notes,
    rewrite: password.changed || recorded?.jwtSecret !== undefined,
  };
}
