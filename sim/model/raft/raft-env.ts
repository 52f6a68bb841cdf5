import type { RaftMessage } from './raft-messages.ts';

/** What a Raft group needs from the simulation: time, timers, the trace and the network. */
export interface RaftEnv {
  now(): number;
  after(delayMs: number, kind: string, run: () => void): void;
  record(kind: string, detail: unknown): void;
  send(from: number, to: number, message: RaftMessage, deliver: (message: RaftMessage, from: number, to: number) => void): void;
}
