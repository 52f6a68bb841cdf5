import { createServer } from 'node:net';

/**
 * Free TCP ports on this host's loopback interface, for a server that runs in a container on the
 * host's network (`docker:IMAGE?network=host&port=auto`) and so shares this host's ports.
 */

/** Ports tried: below Linux's ephemeral range (32768+), where no outgoing connection holds one. */
const LOW = 20_000;
const HIGH = 32_000;

/** Can a listener bind 127.0.0.1:port right now? (A socket bound to 0.0.0.0 on it makes this fail too.) */
export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * A port P such that P … P+count-1 are all free: a cluster image such as mqsim's listens on one port
 * per node from P. Chosen at random so that concurrent runs rarely try the same block; a block can
 * still be taken between this check and the server's bind, which the server then reports.
 */
export async function freePortBlock(count: number, random: () => number = Math.random): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const start = LOW + Math.floor(random() * (HIGH - LOW - count));
    let free = true;
    for (let p = start; p < start + count && free; p++) free = await portIsFree(p);
    if (free) return start;
  }
  throw new Error(`no block of ${count} free ports between ${LOW} and ${HIGH} on 127.0.0.1`);
}
