/**
 * Child process of the HTTP soak (scripts/soak-http.ts): runs `mqsim serve`'s real HTTP server
 * (startClusterServer, the same listeners, parser limits and timeouts as the CLI) and answers memory
 * questions from its parent over the IPC channel. It runs in its own process so the figures are the
 * server's alone, not the load generator's, and under --expose-gc so a measurement can first collect
 * garbage: what is left after a full GC is what the server retains.
 *
 * Messages in:  {type:'memory'}                 → {type:'memory', heapUsed, rss, external, arrayBuffers}
 *               {type:'stop'}                   → closes the server and exits 0
 * Message out:  {type:'ready', url}             once every listener is up
 */
import { startClusterServer } from '../../sim/io/serve/cluster-server.ts';

interface MemoryFigures {
  type: 'memory';
  heapUsed: number;
  rss: number;
  external: number;
  arrayBuffers: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc || !process.send) {
  process.stderr.write('soak-server: run me with --expose-gc and an IPC channel (child_process.fork)\n');
  process.exit(2);
}

const nodes = Number(process.env.SOAK_NODES ?? '3');
const running = await startClusterServer({
  seed: 'soak',
  nodes,
  port: 0,
  workload: 'none',
  onInternalError: (e) => process.stderr.write(`soak-server: internal error: ${(e as Error)?.stack ?? e}\n`),
});

/** Several full collections: one pass can leave garbage that only a second one frees (weak refs, finalizers). */
function measure(): MemoryFigures {
  for (let i = 0; i < 3; i++) gc!();
  const m = process.memoryUsage();
  return { type: 'memory', heapUsed: m.heapUsed, rss: m.rss, external: m.external, arrayBuffers: m.arrayBuffers };
}

process.on('message', (msg: { type?: string }) => {
  if (msg?.type === 'memory') process.send!(measure());
  else if (msg?.type === 'stop') void running.close().then(() => process.exit(0));
});
process.on('disconnect', () => void running.close().then(() => process.exit(0)));
process.send!({ type: 'ready', url: running.baseUrl });
