import fc from 'fast-check';
import { UNICODE_TAIL } from './symbols.ts';

/**
 * Texts valid under any reading of the spec: ASCII letters, digits and a few separators at any
 * length, and letters outside ASCII only where even a server counting UTF-8 bytes (4 per character
 * at most) stays within the limit, so a limit counted in bytes instead of characters never makes a
 * valid case look invalid.
 */

const ASCII = [...'abcdefghijklmnopqrstuvwxyz0123456789-_.'];
const WIDE = [...'abcdefghijklmnopqrstuvwxyz0123456789-_.', ...UNICODE_TAIL, 'ü', 'ß', '字'];

function asciiText(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...ASCII), minLength, maxLength });
}

/** A free text within [min, max] characters, with its boundaries favoured. */
export function freeText(minLength = 0, maxLength?: number): fc.Arbitrary<string> {
  const max = maxLength ?? 40;
  const arbs: fc.Arbitrary<string>[] = [asciiText(minLength, Math.min(max, Math.max(minLength, 16)))];
  if (maxLength !== undefined) arbs.push(fc.constant('m'.repeat(maxLength)));
  if (minLength >= 1) arbs.push(fc.constant('n'.repeat(minLength)));
  const wideMax = Math.min(12, Math.floor(max / 4));
  if (wideMax >= Math.max(1, minLength))
    arbs.push(fc.string({ unit: fc.constantFrom(...WIDE), minLength: Math.max(1, minLength), maxLength: wideMax }));
  return fc.oneof(...arbs);
}

const LEVEL = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), minLength: 1, maxLength: 6 });

/** An MQTT topic name (no wildcards), 1..maxLength characters. */
export function topicName(maxLength = 256): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.array(LEVEL, { minLength: 1, maxLength: 4 }).map((ls) => ls.join('/')), weight: 4 },
    { arbitrary: fc.constant('t'.repeat(maxLength)), weight: 1 },
    { arbitrary: fc.constant(`p/${UNICODE_TAIL}`), weight: 1 },
  );
}

/** A valid MQTT topic filter: levels, whole-level `+`, and `#` only as the last level. */
export function topicFilter(maxLength = 256): fc.Arbitrary<string> {
  const level = fc.oneof({ arbitrary: LEVEL, weight: 4 }, { arbitrary: fc.constant('+'), weight: 1 });
  return fc.oneof(
    {
      arbitrary: fc
        .tuple(fc.array(level, { minLength: 1, maxLength: 4 }), fc.boolean())
        .map(([ls, hash]) => [...ls, ...(hash ? ['#'] : [])].join('/')),
      weight: 5,
    },
    { arbitrary: fc.constant('#'), weight: 1 },
    { arbitrary: fc.constant('f'.repeat(maxLength)), weight: 1 },
  );
}

export const ipv4 = fc
  .tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.integer({ min: 1, max: 254 }))
  .map((p) => p.join('.'));
/** A network in canonical form (no host bits set), so a server that normalises it shows the same text. */
export const ipv4Network = fc
  .tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.constantFrom(8, 16, 24))
  .map(([a, b, c, n]) => (n === 8 ? `${a}.0.0.0/8` : n === 16 ? `${a}.${b}.0.0/16` : `${a}.${b}.${c}.0/24`));

/** Regular expressions every common engine compiles (RE2, Rust regex, ECMAScript, PCRE). */
export function regexText(maxLength = 500): fc.Arbitrary<string> {
  return fc.oneof(fc.constantFrom('^a/(.*)$', '(.*)', 'x+', '^([^/]+)/(.+)$', 'a'), fc.constant('r'.repeat(maxLength)));
}
