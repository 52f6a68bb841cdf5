import seedrandom from 'seedrandom';

const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuv';

/**
 * Seeded randomness for the model. Every random choice of a run comes from here, so one seed gives
 * one run. Sub-streams (`fork`) keep unrelated parts of the model from shifting each other's draws.
 */
export class SeededRandom {
  private readonly prng: seedrandom.PRNG;

  constructor(readonly seed: string) {
    this.prng = seedrandom.alea(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.prng();
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    if (max < min) throw new Error(`empty range [${min}, ${max}]`);
    return min + Math.floor(this.prng() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.prng() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('cannot pick from an empty list');
    return items[Math.floor(this.prng() * items.length)];
  }

  /** Fisher-Yates on a copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.prng() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  /** A 20-character lowercase id in the spirit of xid, drawn from this stream. */
  id(): string {
    let s = '';
    for (let i = 0; i < 20; i++) s += ID_ALPHABET[Math.floor(this.prng() * 32)];
    return s;
  }

  /** An RFC 9562 version-4 UUID (`xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`) drawn from this stream. */
  uuid(): string {
    const b = this.bytes(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  /** `n` bytes, for salts and similar values that must still be reproducible. */
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(this.prng() * 256);
    return out;
  }

  /** An independent stream derived from this seed and a name. */
  fork(name: string): SeededRandom {
    return new SeededRandom(`${this.seed}/${name}`);
  }
}
