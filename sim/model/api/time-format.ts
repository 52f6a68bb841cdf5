/**
 * Output time forms of the spec. "Local time" is the simulator's local time zone, which is UTC so
 * that reports and traces read the same on every machine (a decision recorded in the contract).
 */

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

const DAY_MS = 86_400_000;
/** Largest |ms| a Date holds; beyond it (and for NaN) the Date-based form is kept as it was. */
const MAX_DATE_MS = 8.64e15;
/** "00".."59", so the time of day is three look-ups. */
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => pad(i));
/** `YYYY-MM-DD` of recent days (lists format many times of the same days), bounded. */
const dayTexts = new Map<number, string>();
const MAX_DAYS_KEPT = 4_096;

/** The Date-based form: the reference the fast path below must equal (checked by a property test). */
export function localTimeStringByDate(unixMs: number): string {
  const d = new Date(unixMs);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/**
 * `YYYY-MM-DD HH:MM:SS` in the simulator's local zone (UTC). Lists format a time per record and
 * request, so the day part is cached and the time of day computed without a Date.
 */
export function localTimeString(unixMs: number): string {
  if (!(Math.abs(unixMs) <= MAX_DATE_MS)) return localTimeStringByDate(unixMs);
  // A Date drops a fraction of a millisecond toward zero.
  const ms = Math.trunc(unixMs);
  const day = Math.floor(ms / DAY_MS);
  let dayText = dayTexts.get(day);
  if (dayText === undefined) {
    dayText = localTimeStringByDate(day * DAY_MS).slice(0, -9);
    if (dayTexts.size >= MAX_DAYS_KEPT) dayTexts.clear();
    dayTexts.set(day, dayText);
  }
  const second = Math.floor((ms - day * DAY_MS) / 1000);
  return `${dayText} ${TWO_DIGITS[Math.floor(second / 3600)]}:${TWO_DIGITS[Math.floor(second / 60) % 60]}:${TWO_DIGITS[second % 60]}`;
}

export function unixSeconds(unixMs: number): number {
  return Math.floor(unixMs / 1000);
}
