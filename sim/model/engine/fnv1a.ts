/**
 * Stable 32-bit FNV-1a hash, to spread keys over partitions, groups and nodes the same way on every run
 * (placement must not depend on the process, so no built-in hash or random source is used).
 * It hashes UTF-16 code units, which for ASCII text are the bytes of the reference algorithm.
 */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
