import { describe, expect, it } from 'vitest';
import { parsePeerAddress, peerAddressProblem } from './peer-address.ts';

describe('--peer-address', () => {
  it('takes an IP literal (IPv6 with or without brackets) and refuses names and garbage', () => {
    expect(parsePeerAddress('127.0.0.2')).toBe('127.0.0.2');
    expect(parsePeerAddress(' [::1] ')).toBe('::1');
    for (const bad of ['localhost', '127.0.0', '10.0.0.300', '', 'fe80::1::2']) {
      expect(() => parsePeerAddress(bad), bad).toThrow(
        /^--peer-address must be an IP address of this host \(e\.g\. 127\.0\.0\.2 or \S+\), got /,
      );
    }
  });

  it('is usable only when this host can send from it', async () => {
    expect(await peerAddressProblem('127.0.0.1')).toBeUndefined();
    // TEST-NET-3: no host has it.
    expect(await peerAddressProblem('203.0.113.7')).toMatch(
      /^--peer-address 203\.0\.113\.7 cannot be used: this host cannot send from it \(EADDRNOTAVAIL\); give one of its own addresses, e\.g\. 127\.0\.0\.2 or \S+\.$/,
    );
  });
});
