/**
 * Test support for the crash torture (crash-torture.ts): what each writer wrote and how it was
 * answered, and the judgement after each restart. A write acknowledged (code 0, or an MQTT ack) must
 * be there after every later restart; one left unanswered by a kill may be there or not, but whole,
 * and once a restart has shown which, it stays so; what one writer keeps is a prefix of what it wrote.
 */
import type { Presence, ServerView, Step } from './crash-steps.ts';

type Status =
  | 'pending'
  | 'acked'
  /** Unanswered at a kill (or answered with a failure), not yet seen by a restart. */
  | 'unanswered'
  /** Unanswered, and a restart showed it whole: from then on it must stay. */
  | 'kept'
  /** Unanswered, and a restart showed it absent: from then on it must stay absent. */
  | 'dropped'
  /** Acknowledged and missing after a restart: counted once. */
  | 'lost'
  /** Answered with a failure (e.g. a binding whose schema a kill lost): must never show. */
  | 'refused';

interface Entry {
  readonly writer: string;
  readonly life: number;
  readonly step: Step;
  status: Status;
  ack?: unknown;
}

export interface CrashTally {
  acknowledged: number;
  lost: string[];
  halfApplied: string[];
  /** An unanswered write seen absent by one restart and present after another, or kept then gone. */
  unstable: string[];
  /** A writer whose writes of one life are not a prefix: a later one there, an earlier one missing. */
  outOfOrder: string[];
  /** Writes answered with a failure while the server ran (a bug of the server or of the torture). */
  failedAnswers: string[];
  unansweredKept: number;
  unansweredDropped: number;
}

export class CrashLedger {
  private readonly entries: Entry[] = [];
  private readonly reported = new Set<string>();
  readonly tally: CrashTally = {
    acknowledged: 0,
    lost: [],
    halfApplied: [],
    unstable: [],
    outOfOrder: [],
    failedAnswers: [],
    unansweredKept: 0,
    unansweredDropped: 0,
  };

  /** Starts a write; the returned callbacks settle it. */
  begin(writer: string, life: number, step: Step): { acked(ack: unknown): void; unanswered(): void; failed(why: string): void } {
    const entry: Entry = { writer, life, step, status: 'pending' };
    this.entries.push(entry);
    return {
      acked: (ack) => {
        entry.status = 'acked';
        entry.ack = ack;
        this.tally.acknowledged++;
      },
      unanswered: () => (entry.status = 'unanswered'),
      failed: (why) => {
        entry.status = 'refused';
        this.tally.failedAnswers.push(`${writer}: ${step.label}: ${why}`);
      },
    };
  }

  /** Judges every write against the server of `life`, just restarted; returns the writes lost now. */
  async check(view: ServerView, life: number): Promise<number> {
    const lostBefore = this.tally.lost.length;
    const seen = new Map<Entry, Presence>();
    for (const e of this.entries) {
      if (e.status === 'pending') throw new Error(`${e.writer}: ${e.step.label} is still pending at a check`);
      const p = await e.step.presence(view, e.ack);
      seen.set(e, p);
      this.judge(e, p, life);
    }
    this.checkOrder(seen);
    return this.tally.lost.length - lostBefore;
  }

  private judge(e: Entry, p: Presence, life: number): void {
    const where = `${e.writer}: ${e.step.label} (written in life ${e.life}, checked in life ${life})`;
    if (p.state === 'partial') {
      this.tally.halfApplied.push(`${where}: ${p.why}`);
      return;
    }
    const there = p.state === 'present';
    switch (e.status) {
      case 'acked':
        if (!there) {
          e.status = 'lost';
          this.tally.lost.push(where);
        }
        return;
      case 'unanswered':
        e.status = there ? 'kept' : 'dropped';
        if (there) this.tally.unansweredKept++;
        else this.tally.unansweredDropped++;
        return;
      case 'kept':
      case 'dropped':
        if (there === (e.status === 'kept') || (e.step.overwrite && there)) return;
        this.tally.unstable.push(`${where}: was ${e.status}, now ${p.state}`);
        return;
      case 'refused':
        if (there) this.tally.unstable.push(`${where}: answered with a failure, yet there`);
        return;
      default:
        return; // lost: counted once
    }
  }

  /**
   * Per writer and life: nothing present after something absent (a dropped unanswered write ends a
   * life). An overwrite is no witness: a later life's write makes it look present. Each gap is
   * reported once, at the first check that shows it.
   */
  private checkOrder(seen: Map<Entry, Presence>): void {
    const gap = new Map<string, Entry>();
    for (const e of this.entries) {
      if (e.status === 'refused') continue;
      const key = `${e.writer}#${e.life}`;
      const there = seen.get(e)?.state !== 'absent';
      const before = gap.get(key);
      if (!there && !before) gap.set(key, e);
      if (there && before && !e.step.overwrite) {
        const report = `${e.writer}: ${e.step.label} is there but the earlier ${before.step.label} is not`;
        if (!this.reported.has(report)) this.tally.outOfOrder.push(report);
        this.reported.add(report);
        gap.delete(key);
      }
    }
  }
}
