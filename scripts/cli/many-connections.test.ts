import { connect, type Socket } from 'node:net';
import mqttPacket from 'mqtt-packet';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileLimit } from '../../sim/io/mqtt-wire/fd-limit.ts';
import { startServe, stopAll } from './testing/serve-process.ts';
import { connectClient, startTestBroker } from '../../sim/io/mqtt-wire/testing/test-broker.ts';

/**
 * Many connections: 10,000 concurrent sockets are connected and served, and past the listener's
 * socket cap new ones are closed at once while the others go on. The 10,000 run uses `mqsim serve`
 * in a child process, so each process holds 10,000 descriptors rather than one holding 20,000.
 * Measured on the 2-core machine: 10,000 CONNECT/CONNACK in 1.4-2.9 s, server RSS ≈250 MB.
 */

const overview = async (url: string): Promise<{ connection_num: number }> =>
  ((await (await fetch(`${url}/api/mqtt/overview`)).json()) as { data: { connection_num: number } }).data;

const N = 10_000;
const limit = openFileLimit() ?? 0;
afterAll(() => stopAll());

/** Opens `n` sockets, each sending CONNECT, at most `window` waiting for their CONNACK at a time. */
async function connectMany(port: number, n: number, window = 500): Promise<Socket[]> {
  const sockets: Socket[] = [];
  let opened = 0;
  let acked = 0;
  await new Promise<void>((resolve, reject) => {
    const openMore = () => {
      while (opened < n && opened - acked < window) {
        const i = opened++;
        const s = connect({ host: '127.0.0.1', port });
        sockets.push(s);
        s.once('error', reject);
        s.once('connect', () =>
          s.write(
            mqttPacket.generate({
              cmd: 'connect',
              protocolId: 'MQTT',
              protocolVersion: 4,
              clientId: `many-${i}`,
              clean: true,
              keepalive: 600,
            }),
          ),
        );
        s.once('data', (b: Buffer) => {
          if (b[0] !== 0x20 || b[3] !== 0) reject(new Error(`client ${i} got ${b.toString('hex')} instead of a CONNACK accepting it`));
          if (++acked === n) resolve();
          else openMore();
        });
      }
    };
    openMore();
  });
  return sockets;
}

describe('MQTT listener: many connections', () => {
  it.skipIf(limit < N + 1_000)(
    `serves ${N} concurrent connections and lets them go (needs ulimit -n ≥ ${N + 1_000}; this process has ${limit})`,
    async () => {
      const { child, exit, url, mqttPort } = await startServe(['--workload', 'none', '--mqtt-port', '0', '--nodes', '1']);
      const port = mqttPort!;
      const started = performance.now();
      const sockets = await connectMany(port, N);
      const seconds = (performance.now() - started) / 1000;
      expect((await overview(url)).connection_num).toBe(N);
      // They are served, not just accepted: a sample pings and gets answered.
      const sample = sockets.filter((_, i) => i % 1000 === 0);
      await Promise.all(
        sample.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.once('data', (b: Buffer) => {
                expect(b[0]).toBe(0xd0); // PINGRESP
                resolve();
              });
              s.write(Buffer.from([0xc0, 0x00]));
            }),
        ),
      );
      for (const s of sockets) s.destroy();
      const deadline = Date.now() + 10_000;
      let left = N;
      while (left > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        left = (await overview(url)).connection_num;
      }
      expect(left).toBe(0);
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      console.log(`${N} connections in ${seconds.toFixed(1)} s (${Math.round(N / seconds)}/s)`);
    },
    60_000,
  );

  it('closes sockets past the listener cap at once and keeps serving the others', async () => {
    const broker = await startTestBroker({ mqttMaxSockets: 20 });
    try {
      const held = await connectMany(broker.port(), 20);
      const extra = await new Promise<string>((resolve) => {
        const s = connect({ host: '127.0.0.1', port: broker.port(2) });
        s.on('data', () => resolve('answered'));
        s.on('error', () => resolve('closed'));
        s.on('close', () => resolve('closed'));
        s.on('connect', () =>
          s.write(
            mqttPacket.generate({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clientId: 'over', clean: true, keepalive: 60 }),
          ),
        );
      });
      expect(extra).toBe('closed');
      expect(broker.running.mqtt!.refusedSockets).toBe(1);
      held[0].destroy();
      await new Promise((r) => setTimeout(r, 100));
      const fresh = await connectClient(broker.port(3), { clientId: 'after-room' });
      await fresh.publishAsync('cap/x', 'fits', { qos: 1 });
      await fresh.endAsync();
      for (const s of held) s.destroy();
    } finally {
      await broker.close();
    }
  });
});
