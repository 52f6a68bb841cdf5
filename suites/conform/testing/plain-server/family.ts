import type { ListDef, Row } from './list-query.ts';
import type { Body, Rules } from './rules.ts';

/**
 * A resource family as data: the create and delete bodies with their rules (spec: Resources,
 * Endpoints and Limits; for the shapes the spec does not show, the reference notes), the identity of
 * an instance, the record its list shows, and its list query. The families are in the modules
 * beside this one, gathered in families.ts.
 */

export interface FamilyDef {
  key: string;
  paths: { create: string; delete: string; list: string; update?: string };
  /** The shard list takes its parameters in a JSON body. */
  listMethod?: 'POST';
  create: Rules;
  remove: Rules;
  /** The body fields that name an instance, scope first. */
  identity: readonly string[];
  /** A create of a name that exists: replaces it (`upsert`) or is refused. */
  onDuplicate: 'refuse' | 'upsert';
  /** The list record of a valid create body (also checks what rules cannot say). */
  record(body: Body, clock: Clock): Row;
  list: ListDef;
  /** What a successful create answers: `success`, or the new record (topics). */
  answersRecord?: boolean;
}

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
}

export const seconds = (c: Clock) => Math.floor(c.now() / 1000);
const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:MM:SS` in the server's time zone; times past year 9999 show as its last second. */
export function localTime(ms: number): string {
  const d = new Date(Math.min(ms, 253_402_300_799_000));
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export const str = (v: unknown) => (typeof v === 'string' ? v : '');
export const contains = (field: string) => ({ field });
export const exact = (field: string) => ({ field, exact: true });
/** The general default page size (Limits: "10000 in general"). */
export const GENERAL = 10_000;
