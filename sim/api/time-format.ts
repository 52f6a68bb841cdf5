/**
 * Output time forms of the spec. "Local time" is the simulator's local time zone, which is UTC so
 * that reports and traces read the same on every machine (a decision recorded in the contract).
 */

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `YYYY-MM-DD HH:MM:SS` in the simulator's local zone (UTC). */
export function localTimeString(unixMs: number): string {
  const d = new Date(unixMs);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

export function unixSeconds(unixMs: number): number {
  return Math.floor(unixMs / 1000);
}
