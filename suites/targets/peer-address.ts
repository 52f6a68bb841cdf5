import { createServer, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * `--peer-address ADDR`: the local address the auth checks send from, as a peer the spec does not
 * exempt from tokens. It must be an IP literal this host can bind (a name could resolve to several
 * addresses, and a foreign address cannot be sent from).
 */

/** Checks the form; throws a message fit for a usage error. */
export function parsePeerAddress(value: string): string {
  const address = value.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIP(address) === 0)
    throw new Error(
      `--peer-address must be an IP address of this host (e.g. 127.0.0.2 or ${exampleAddress()}), got ${JSON.stringify(value)}.`,
    );
  return address;
}

/** A non-loopback IPv4 address of this host, for examples in messages. */
function exampleAddress(): string {
  const own = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal);
  return own?.address ?? '192.168.1.10';
}

/** Why this host cannot send from `address`, or undefined when it can (it binds a socket there and lets go). */
export function peerAddressProblem(address: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (e: NodeJS.ErrnoException) => {
      resolve(
        `--peer-address ${address} cannot be used: this host cannot send from it (${e.code ?? e.message}); give one of its own addresses, e.g. 127.0.0.2 or ${exampleAddress()}.`,
      );
    });
    server.listen(0, address, () => server.close(() => resolve(undefined)));
  });
}
