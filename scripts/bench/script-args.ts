/**
 * Options of the benchmark and load scripts (`--name value`). The scripts are run by hand or by npm
 * scripts with a handful of options, so this stays a lookup rather than a full CLI parser; a value
 * that is not a number where one is needed stops the script with exit 2 and the option's name.
 */
import { basename } from 'node:path';

function rawArg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function argText(name: string, fallback: string): string {
  return rawArg(name) ?? fallback;
}

export function argNumber(name: string, fallback: number, { positive = false } = {}): number {
  const raw = rawArg(name);
  if (raw === undefined) return fallback;
  const v = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(v) || (positive && v <= 0)) {
    process.stderr.write(
      `${basename(process.argv[1] ?? 'script')}: --${name} needs a${positive ? ' positive' : ''} number, got ${JSON.stringify(raw)}\n`,
    );
    process.exit(2);
  }
  return v;
}
