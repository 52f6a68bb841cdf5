import type { SimEngine } from '../engine/sim-engine.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';

/** Behaviour of one directed link (from → to). */
export interface LinkSettings {
  /** Base one-way latency, ms. */
  latencyMs: number;
  /** Extra random delay in [0, jitterMs], ms: what lets messages overtake each other (reordering). */
  jitterMs: number;
  /** Probability a message is lost. */
  loss: number;
  /** Probability a message is delivered twice. */
  duplicate: number;
}

/** Counters of what the network did, for reports and coverage. */
export interface NetworkStats {
  sent: number;
  delivered: number;
  dropped: number;
  duplicated: number;
  blocked: number;
}

export type Deliver<M> = (message: M, from: number, to: number) => void;

/** Numeric key of a directed link (node ids are small): cheaper than a string on every message. */
const linkKey = (from: number, to: number): number => from * 65_536 + to;

/**
 * Messages between nodes on the virtual clock. Each directed link has a seeded base latency; loss,
 * duplication and jitter (reordering) can be set per link or for all links; partitions block links
 * symmetrically or one way until healed. Delivery is an event of the engine, so a run replays exactly.
 * A message to or from a node that is down when it would arrive is dropped (`isUp`).
 */
export class SimNetwork {
  private readonly links = new Map<number, LinkSettings>();
  private readonly blocked = new Set<number>();
  private readonly stats: NetworkStats = { sent: 0, delivered: 0, dropped: 0, duplicated: 0, blocked: 0 };
  private defaults: Omit<LinkSettings, 'latencyMs'> = { jitterMs: 0, loss: 0, duplicate: 0 };

  constructor(
    private readonly engine: SimEngine,
    private readonly rng: SeededRandom,
    private readonly isUp: (node: number) => boolean = () => true,
  ) {}

  /** The settings of a link; the base latency (1-5 ms) is drawn once per link from the seed. */
  link(from: number, to: number): LinkSettings {
    const key = linkKey(from, to);
    let l = this.links.get(key);
    if (!l) {
      l = { latencyMs: this.rng.int(1, 5), ...this.defaults };
      this.links.set(key, l);
    }
    return l;
  }

  /** Changes one directed link. */
  configureLink(from: number, to: number, settings: Partial<LinkSettings>): void {
    Object.assign(this.link(from, to), settings);
    this.engine.record('net.link', { from, to, ...settings });
  }

  /** Loss, duplication and jitter for every link, present and future (latency stays per link). */
  configureAll(settings: Partial<Omit<LinkSettings, 'latencyMs'>>): void {
    this.defaults = { ...this.defaults, ...settings };
    for (const l of this.links.values()) Object.assign(l, settings);
    this.engine.record('net.all', settings);
  }

  /** Cuts every link between the two sides, both ways (or only side A → side B with `oneWay`). */
  partition(sideA: readonly number[], sideB: readonly number[], oneWay = false): void {
    for (const a of sideA) {
      for (const b of sideB) {
        if (a === b) continue;
        this.blocked.add(linkKey(a, b));
        if (!oneWay) this.blocked.add(linkKey(b, a));
      }
    }
    this.engine.record('net.partition', { sideA, sideB, oneWay });
  }

  /** Isolates one node from all others, both ways. */
  isolate(node: number, others: readonly number[]): void {
    this.partition(
      [node],
      others.filter((n) => n !== node),
    );
  }

  /** Removes every partition, and optionally resets loss, duplication and jitter. */
  heal(resetFaults = true): void {
    this.blocked.clear();
    if (resetFaults) this.configureAll({ jitterMs: 0, loss: 0, duplicate: 0 });
    this.engine.record('net.heal', { resetFaults });
  }

  isBlocked(from: number, to: number): boolean {
    return this.blocked.has(linkKey(from, to));
  }

  /** Can `from` reach `to` right now (both up, link not cut)? Used by request/response RPCs. */
  reachable(from: number, to: number): boolean {
    return from === to || (this.isUp(from) && this.isUp(to) && !this.isBlocked(from, to));
  }

  /**
   * Sends `message`; `deliver` runs at the receiver after the link's latency (plus jitter), unless the
   * link is cut now, the message is lost, or either end is down at arrival. Returns false when the
   * message was not put on the wire at all.
   */
  send<M>(from: number, to: number, message: M, deliver: Deliver<M>): boolean {
    this.stats.sent++;
    if (from === to) {
      this.engine.after(0, 'net.local', () => deliver(message, from, to));
      this.stats.delivered++;
      return true;
    }
    if (!this.isUp(from) || this.isBlocked(from, to)) {
      this.stats.blocked++;
      return false;
    }
    const l = this.link(from, to);
    if (l.loss > 0 && this.rng.chance(l.loss)) {
      this.stats.dropped++;
      return true;
    }
    const copies = l.duplicate > 0 && this.rng.chance(l.duplicate) ? 2 : 1;
    if (copies === 2) this.stats.duplicated++;
    for (let i = 0; i < copies; i++) {
      const delay = l.latencyMs + (l.jitterMs > 0 ? this.rng.int(0, l.jitterMs) : 0);
      this.engine.after(delay, 'net.deliver', () => {
        if (!this.isUp(to) || this.isBlocked(from, to)) {
          this.stats.dropped++;
          return;
        }
        this.stats.delivered++;
        deliver(message, from, to);
      });
    }
    return true;
  }

  snapshotStats(): NetworkStats {
    return { ...this.stats };
  }
}
