import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import type { QueuedMessage } from '../../model/connectors/connector-types.ts';
import type { AsyncSink, SinkResult } from '../../model/connectors/simulated-sink.ts';
import { sleep } from './testing/live-test-kit.ts';

/** An asynchronous sink whose batches the test settles by hand. */
function manualSink() {
  const pending: { batch: readonly QueuedMessage[]; resolve: (r: SinkResult) => void; reject: (e: unknown) => void }[] = [];
  const sink: AsyncSink = {
    deliver: (batch) => new Promise<SinkResult>((resolve, reject) => pending.push({ batch, resolve, reject })),
  };
  return { sink, pending };
}

async function setup(failure_strategy: unknown) {
  const sim = new InProcessSim({ workload: 'none', nodes: 1, seed: 3 });
  const { sink, pending } = manualSink();
  sim.cluster.connectors.setSinkFactory(() => sink);
  sim.cluster.connectors.create({
    tenant: 'default',
    connector_name: 'a',
    connector_type: 'webhook',
    config: JSON.stringify({ url: 'http://127.0.0.1:1/x' }),
    topic_name: 't/#',
    failure_strategy,
  });
  sim.advance(1000);
  const c = sim.cluster.connectors.get('default', 'a')!;
  const send = (payload: string) => sim.cluster.connectors.onMessage('default', 't/1', { payload, timestamp: sim.cluster.now() });
  return { sim, pending, c, send };
}

const flush = () => sleep(0);

describe('asynchronous (live) sinks in the connector thread', () => {
  it('waits while a batch is in flight and applies the outcome as an engine event', async () => {
    const { sim, pending, c, send } = await setup({ strategy: 'discard' });
    send('one');
    sim.advance(1000);
    expect(pending).toHaveLength(1);
    send('two');
    sim.advance(5000);
    expect(pending).toHaveLength(1); // nothing else is sent while the first batch is out
    pending[0].resolve({ ok: 1, failed: [] });
    await flush();
    expect(c.stats.sendSuccessTotal).toBe(0); // not applied until the model runs again
    sim.advance(1);
    expect(c.stats.sendSuccessTotal).toBe(1);
    expect(c.stats.lastMsg).toBe('one');
    expect(pending).toHaveLength(2); // the next batch left at once
    expect(sim.cluster.engine.trace.tail(50).some((e) => e.kind === 'connector.send')).toBe(true);
  });

  it('retries on the virtual clock and writes dead letters after a failed live batch', async () => {
    const { sim, pending, c, send } = await setup({
      strategy: 'dead_message_queue',
      retry_total_times: 1,
      wait_time_ms: 3000,
      topic_name: 'dlq',
    });
    send('lost');
    sim.advance(1000);
    pending[0].reject(new Error('ECONNREFUSED'));
    await flush();
    await flush();
    sim.advance(1);
    expect(pending).toHaveLength(1); // the retry waits wait_time_ms
    sim.advance(3000);
    expect(pending).toHaveLength(2);
    pending[1].resolve({ ok: 0, failed: pending[1].batch.map((msg) => ({ msg, error: 'server said no' })) });
    await flush();
    sim.advance(1);
    expect(c.stats.sendFailTotal).toBe(1);
    const read = await sim.post('/api/mqtt/message/read', { tenant: 'default', topic: 'dlq', offset: 0 });
    const record = JSON.parse(read.json.data.messages[0].content);
    expect(record).toMatchObject({ connector_name: 'a', source_topic: 't/1', error_message: 'server said no', retry_times: 1 });
  });

  it('ignores the outcome of a batch whose thread was stopped meanwhile', async () => {
    const { sim, pending, c, send } = await setup({ strategy: 'discard' });
    send('x');
    sim.advance(1000);
    sim.cluster.connectors.stop('default', 'a');
    pending[0].resolve({ ok: 1, failed: [] });
    await flush();
    sim.advance(1000);
    expect(c.stats.sendSuccessTotal).toBe(0);
  });
});
