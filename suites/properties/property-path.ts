/**
 * `--property-path` names one failing case exactly: the property, fast-check's counterexample path,
 * and for command sequences fast-check's replayPath (which commands ran), as
 * `<property id>~<path>[~<replayPath>]`, e.g. `model.users~3:1:0~CCJ:F`. With the same seed it
 * replays that case and nothing else.
 */

export interface PropertyPath {
  propertyId: string;
  fcPath: string;
  replayPath?: string;
}

const SEP = '~';

export function formatPropertyPath(p: PropertyPath): string {
  return [p.propertyId, p.fcPath, ...(p.replayPath ? [p.replayPath] : [])].join(SEP);
}

export function parsePropertyPath(text: string): PropertyPath {
  const parts = text.trim().split(SEP);
  if (parts.length < 2 || parts.length > 3 || !parts[0] || !/^\d+(:\d+)*$/.test(parts[1])) {
    throw new Error(
      `--property-path must look like <property>~<path>[~<replayPath>] (as printed with a failure), got ${JSON.stringify(text)}`,
    );
  }
  return { propertyId: parts[0], fcPath: parts[1], ...(parts[2] ? { replayPath: parts[2] } : {}) };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The command that replays one failing case. */
export function replayCommand(targetName: string, seed: number, path: string, username?: string, flags: readonly string[] = []): string {
  return `mqsim conform --target ${targetName}${flags.map((f) => ` ${f}`).join('')} --seed ${seed} --property-path ${shellQuote(path)}${username !== undefined ? ` --username ${shellQuote(username)} --password '…'` : ''}`;
}

/** fast-check's seed is a 32-bit integer: any CLI seed maps to one, the same every time. */
export function fcSeedOf(seed: number): number {
  return Number(BigInt.asIntN(32, BigInt(Math.trunc(seed))));
}
