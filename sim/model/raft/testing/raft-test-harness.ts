import { SimEngine } from '../../engine/sim-engine.ts';
import { SimNetwork } from '../../net/sim-network.ts';
import type { RaftBugs } from '../raft-bugs.ts';
import type { RaftEnv } from '../raft-env.ts';
import { RaftGroupCore } from '../raft-group-core.ts';
import { GroupAudit, RaftViolations } from '../raft-invariants.ts';
import type { RaftNode } from '../raft-node.ts';
import { DEFAULT_RAFT_TIMING, type RaftTiming } from '../raft-timing.ts';
import type { Membership } from '../types.ts';

/**
 * One Raft group on its own engine and network, without the rest of the cluster: what the unit
 * tests of sim/model/raft drive. Node ids are 1..n; `down`/`up` stand for a node's process.
 */
export class RaftHarness {
  readonly engine: SimEngine;
  readonly net: SimNetwork;
  readonly core: RaftGroupCore;
  readonly violations = new RaftViolations();
  readonly bugs: RaftBugs = {};
  private readonly upSet = new Set<number>();

  constructor(
    readonly n = 3,
    seed = 'raft',
    timing: Partial<RaftTiming> = {},
  ) {
    this.engine = new SimEngine({ seed, epochMs: 0 });
    const ids = this.ids();
    for (const id of ids) this.upSet.add(id);
    this.net = new SimNetwork(this.engine, this.engine.random.fork('net'), (id) => this.upSet.has(id));
    const env: RaftEnv = {
      now: () => this.engine.now(),
      after: (ms, kind, run) => {
        this.engine.after(ms, kind, run);
      },
      record: (kind, detail) => this.engine.record(kind, detail),
      send: (from, to, m, deliver) => {
        this.net.send(from, to, m, deliver);
      },
    };
    this.core = new RaftGroupCore(
      'g',
      env,
      this.engine.random.fork('raft'),
      { ...DEFAULT_RAFT_TIMING, ...timing },
      this.bugs,
      new GroupAudit('g', this.violations),
    );
    this.core.bootstrap(membershipOf(ids));
  }

  ids(): number[] {
    return Array.from({ length: this.n }, (_, i) => i + 1);
  }

  node(id: number): RaftNode {
    return this.core.nodes.get(id)!;
  }

  leader(): RaftNode | null {
    return this.core.leader();
  }

  /** The process of `id` dies (persisted state stays). */
  down(id: number): void {
    this.upSet.delete(id);
    this.node(id).crash();
  }

  /** The process of `id` starts again from its persisted state. */
  up(id: number): void {
    this.upSet.add(id);
    this.node(id).boot();
  }

  advance(ms: number): void {
    this.engine.advance(ms);
  }

  /** Advances until `done()` (checked after each instant) or `maxMs` passed; returns done(). */
  until(done: () => boolean, maxMs = 10_000): boolean {
    const end = this.engine.now() + maxMs;
    while (!done()) {
      const next = this.engine.queue.peek();
      if (!next || next.at > end) return false;
      this.engine.runUntil(next.at);
    }
    return true;
  }
}

export function membershipOf(ids: readonly number[]): Membership {
  return { voters: [...ids].sort((a, b) => a - b), nodes: new Map(ids.map((id) => [id, `127.0.0.1:${1227 + id}`])) };
}
