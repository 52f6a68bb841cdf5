import type { Connector, QueuedMessage } from './connector-types.ts';
import { isAsyncSink, type AsyncSink, type ConnectorSink, type SinkFailure, type SinkResult } from './simulated-sink.ts';

/** What a thread needs from the model; injected so the thread stays testable on its own. */
export interface ThreadEnv {
  now(): number;
  after(delayMs: number, kind: string, run: () => void): void;
  record(kind: string, detail: unknown): void;
  /** The sink for the next attempt (outages can change between attempts). */
  sink(connector: Connector): ConnectorSink;
  /** Writes dead letters; returns an error text when the write failed. */
  deadLetter(connector: Connector, topicName: string, failures: readonly SinkFailure[], retryTimes: number): string | null;
}

/** Messages a thread holds at most; older ones are dropped (and counted as failed) beyond it. */
const MAX_QUEUED_MESSAGES = 10_000;
/** `last_msg` keeps at most this many characters of the payload. */
const LAST_MSG_MAX_CHARS = 256;

function truncate(text: string, max: number): string {
  if (text.length <= max) return text; // code units ≥ code points, so this is a safe fast path
  return Array.from(text).slice(0, max).join('');
}

/**
 * The running side of one connector on its node (the real server's bridge-plugin thread): a queue
 * of matching messages, drained in batches by `pump()` once per scheduler second. A failed batch
 * goes through the failure strategy: discard at once, or retry the failed messages
 * `retry_total_times` times `wait_time_ms` apart (the thread sends nothing else meanwhile), then
 * drop them or write dead letters. Counters live in `connector.stats`; a new thread starts them at 0.
 */
export class ConnectorThread {
  private readonly queue: QueuedMessage[] = [];
  private retryPending = false;
  /** A batch is with an asynchronous (live) sink; the thread sends nothing else until it settles. */
  private inFlight = false;
  private stopped = false;
  private overflowDropped = 0;

  constructor(
    readonly connector: Connector,
    private readonly env: ThreadEnv,
    readonly batchSize: number,
  ) {}

  get queued(): number {
    return this.queue.length;
  }

  get isRetrying(): boolean {
    return this.retryPending;
  }

  get isDelivering(): boolean {
    return this.inFlight;
  }

  enqueue(msg: QueuedMessage): void {
    if (this.stopped) return;
    this.queue.push(msg);
    if (this.queue.length > MAX_QUEUED_MESSAGES) {
      this.queue.shift();
      this.overflowDropped++;
      this.connector.stats.sendFailTotal++;
    }
  }

  /** Ends the thread: queued messages are lost and pending retries do nothing. */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
  }

  /** Sends everything queued, batch by batch, unless a retry is waiting. */
  pump(): void {
    if (this.overflowDropped > 0) {
      this.env.record('connector.overflow', {
        tenant: this.connector.tenant,
        name: this.connector.connector_name,
        dropped: this.overflowDropped,
      });
      this.overflowDropped = 0;
    }
    while (!this.stopped && !this.retryPending && !this.inFlight && this.queue.length > 0) {
      this.attempt(this.queue.splice(0, this.batchSize), 0);
    }
  }

  private attempt(batch: QueuedMessage[], retryTimes: number): void {
    const sink = this.env.sink(this.connector);
    if (isAsyncSink(sink)) this.deliverAsync(sink, batch, retryTimes);
    else this.settle(batch, retryTimes, sink.send(batch));
  }

  /**
   * Live delivery: the outcome re-enters the model as an engine event at the virtual time it
   * arrives, so counters, retries and dead letters change inside the event loop as for simulated
   * sinks. A thread stopped meanwhile ignores the outcome.
   */
  private deliverAsync(sink: AsyncSink, batch: QueuedMessage[], retryTimes: number): void {
    this.inFlight = true;
    const everyFailed = (e: unknown): SinkResult => {
      const error = `delivery failed: ${(e as Error)?.message ?? String(e)}`;
      return { ok: 0, failed: batch.map((msg) => ({ msg, error })) };
    };
    void sink
      .deliver(batch)
      .then((r) => r, everyFailed)
      .then((result) =>
        this.env.after(0, 'connector.live.outcome', () => {
          this.inFlight = false;
          if (this.stopped) return;
          this.settle(batch, retryTimes, result);
          this.pump();
        }),
      );
  }

  /** Counts one attempt's outcome and applies the failure strategy to what failed. */
  private settle(batch: QueuedMessage[], retryTimes: number, result: SinkResult): void {
    const c = this.connector;
    const failedSet = new Set(result.failed.map((f) => f.msg));
    const delivered = batch.filter((m) => !failedSet.has(m));
    if (delivered.length > 0) {
      c.stats.sendSuccessTotal += delivered.length;
      c.stats.lastSendTimeMs = this.env.now();
      c.stats.lastMsg = truncate(delivered[delivered.length - 1].payload, LAST_MSG_MAX_CHARS);
    }
    this.env.record('connector.send', {
      tenant: c.tenant,
      name: c.connector_name,
      attempt: retryTimes,
      ok: delivered.length,
      failed: result.failed.length,
    });
    if (result.failed.length === 0) return;

    const fs = c.failureStrategy;
    if (fs.strategy !== 'discard' && retryTimes < (fs.retry_total_times ?? 0)) {
      this.retryPending = true;
      const again = result.failed.map((f) => f.msg);
      this.env.after(fs.wait_time_ms ?? 0, 'connector.retry', () => {
        if (this.stopped) return;
        this.retryPending = false;
        this.attempt(again, retryTimes + 1);
        this.pump();
      });
      return;
    }
    this.giveUp(result.failed, retryTimes);
  }

  private giveUp(failures: SinkFailure[], retryTimes: number): void {
    const c = this.connector;
    c.stats.sendFailTotal += failures.length;
    const detail = { tenant: c.tenant, name: c.connector_name, count: failures.length, retries: retryTimes, error: failures[0].error };
    if (c.failureStrategy.strategy !== 'dead_message_queue') {
      this.env.record('connector.discard', detail);
      return;
    }
    const topic = c.failureStrategy.topic_name ?? 'dead_letter_queue';
    const error = this.env.deadLetter(c, topic, failures, retryTimes);
    this.env.record(error ? 'connector.dead_letter.error' : 'connector.dead_letter', {
      ...detail,
      topic,
      ...(error ? { writeError: error } : {}),
    });
  }
}
