/**
 * The spec's rule 1: a request whose source address is exactly the IPv4 loopback 127.0.0.1 or the
 * IPv6 loopback ::1 needs no token. An IPv4-mapped IPv6 form of 127.0.0.1 is the same address seen
 * through a dual-stack socket. Other 127.x.y.z addresses are NOT exempt (the real server exempts
 * all of 127.0.0.0/8, which the spec does not allow).
 */
export function isLoopbackPeer(address: string | undefined): boolean {
  if (!address) return false;
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}
