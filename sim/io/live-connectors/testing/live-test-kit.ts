import { Socket } from 'node:net';
import { InProcessSim } from '../../../admin-api/in-process-client.ts';
import type { Connector } from '../../../model/connectors/connector-types.ts';
import { outageAwareSink } from '../../../model/connectors/simulated-sink.ts';
import { LiveConnectors, type LiveConnectorsOptions } from '../live-connectors.ts';

/**
 * Test kit for the live sinks (used by the *.test.ts files of this folder only): a one-node model
 * with live sinks plugged in, HTTP helpers, and a loop that moves virtual time while real I/O settles.
 */

/** True when something accepts TCP connections on 127.0.0.1:port within `ms`. */
export function portOpen(port: number, ms = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(ms, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => done(true));
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface LiveHarness {
  sim: InProcessSim;
  live: LiveConnectors;
  create(input: { name: string; type: string; config: Record<string, unknown>; topic?: string; failure_strategy?: unknown }): Promise<void>;
  publish(topic: string, payload: string): void;
  connector(name: string): Connector;
  /** Moves virtual time a second at a time, letting real I/O complete in between, until `done()` or the wall deadline. */
  until(done: () => boolean | Promise<boolean>, wallMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export function liveHarness(options: LiveConnectorsOptions = {}): LiveHarness {
  const sim = new InProcessSim({ workload: 'none', nodes: 1, seed: 7 });
  const live = new LiveConnectors(options);
  const outages = sim.cluster.connectors.outages;
  sim.cluster.connectors.setSinkFactory(live.factory((c) => outageAwareSink(c, outages)));
  return {
    sim,
    live,
    async create({ name, type, config, topic = 'live/#', failure_strategy = { strategy: 'discard' } }) {
      sim.advance(20);
      const res = await sim.post('/api/cluster/connector/create', {
        tenant: 'default',
        connector_name: name,
        connector_type: type,
        config: JSON.stringify(config),
        topic_name: topic,
        failure_strategy,
      });
      if (res.json?.code !== 0) throw new Error(`connector create failed: ${res.text}`);
      sim.advance(1000); // the scheduler assigns it and starts its thread
    },
    publish(topic, payload) {
      const result = sim.cluster.mqtt.publish({ tenant: 'default', topic, payload, qos: 1, retain: false });
      if (!result.ok) throw new Error(`publish refused: ${JSON.stringify(result)}`);
    },
    connector(name) {
      const c = sim.cluster.connectors.get('default', name);
      if (!c) throw new Error(`no connector ${name}`);
      return c;
    },
    async until(done, wallMs = 8000) {
      const deadline = performance.now() + wallMs;
      while (performance.now() < deadline) {
        sim.advance(1000);
        if (await done()) return true;
        await sleep(15);
      }
      return false;
    },
    close: () => live.close(),
  };
}
