import type { IndexedList } from '../api/indexed-list.ts';
import { RecordIndex, type IndexEntry } from '../api/record-index.ts';
import { failed } from '../errors/operation-error.ts';
import { localTimeString } from '../api/time-format.ts';
import type { BlacklistRecord, BlacklistType } from '../../../contract/records.ts';
import type { SimEngine } from '../engine/sim-engine.ts';

export interface BlacklistEntry {
  tenant: string;
  name: string;
  blacklist_type: BlacklistType;
  resource_name: string;
  /** Virtual Unix ms at which the entry stops applying. */
  endTimeMs: number;
  desc: string;
  /** `api` entries are created through the API; `flapping` entries by flapping detection. */
  source: 'api' | 'flapping';
}

/** Who is trying to connect or act, for blacklist checks. */
export interface Principal {
  tenant: string;
  clientId: string;
  username?: string;
  ip?: string;
}

function ipv4ToInt(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

/** `a.b.c.d/n` contains `ip` (IPv4 only; other forms never match). */
export function cidrContains(cidr: string, ip: string): boolean {
  const [net, bitsText] = cidr.split('/');
  const bits = Number(bitsText ?? '32');
  const netInt = ipv4ToInt(net);
  const ipInt = ipv4ToInt(ip);
  if (netInt === undefined || ipInt === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (netInt & mask) >>> 0 === (ipInt & mask) >>> 0;
}

/** `prefix*` style pattern of the *Match types: `*` matches any run of characters. */
function wildcardMatches(pattern: string, value: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return re.test(value);
}

/**
 * Blacklist entries keyed by (tenant, name). Create is an upsert, as on the real server. Entries stop
 * applying at their end time; expired entries are still listed until deleted (decision), except
 * flapping bans, which are removed when they end.
 */
export class Blacklist {
  private readonly entries = new RecordIndex<BlacklistEntry>({
    viewFields: { end_time: (e) => localTimeString(e.endTimeMs) },
    viewsOfRecordsOnly: true,
  });

  constructor(private readonly engine: Pick<SimEngine, 'now' | 'record' | 'after'>) {}

  seedDemo(): void {
    const day = 24 * 3600 * 1000;
    this.add({
      tenant: 'acme',
      name: 'block-rogue-sensor',
      blacklist_type: 'ClientId',
      resource_name: 'sensor-rogue-01',
      endTimeMs: this.engine.now() + 30 * day,
      desc: 'compromised device',
      source: 'api',
    });
    this.add({
      tenant: 'default',
      name: 'block-scanner-net',
      blacklist_type: 'IPCIDR',
      resource_name: '203.0.113.0/24',
      endTimeMs: this.engine.now() + 7 * day,
      desc: 'port scanner',
      source: 'api',
    });
  }

  private key(tenant: string, name: string): string {
    return `${tenant}\u0000${name}`;
  }

  add(entry: BlacklistEntry): void {
    this.entries.set(this.key(entry.tenant, entry.name), { ...entry });
    this.engine.record('blacklist.add', {
      tenant: entry.tenant,
      name: entry.name,
      type: entry.blacklist_type,
      resource: entry.resource_name,
      end: entry.endTimeMs,
      source: entry.source,
    });
    if (entry.source === 'flapping') {
      const key = this.key(entry.tenant, entry.name);
      this.engine.after(Math.max(0, entry.endTimeMs - this.engine.now()), 'blacklist.expire', () => {
        const current = this.entries.get(key);
        if (current && current.source === 'flapping' && current.endTimeMs <= this.engine.now()) {
          this.entries.delete(key);
          this.engine.record('blacklist.expire', { tenant: entry.tenant, name: entry.name });
        }
      });
    }
  }

  /** Deletes an entry; an unknown entry is refused (decision: tell the caller it did nothing). */
  delete(tenant: string, name: string): void {
    if (!this.entries.delete(this.key(tenant, name))) throw failed(`Blacklist entry ${name} of tenant ${tenant} does not exist`);
    this.engine.record('blacklist.delete', { tenant, name });
  }

  all(): BlacklistEntry[] {
    return [...this.entries.values()];
  }

  /** The blacklist, served from the sorted indexes. */
  listing(): IndexedList<IndexEntry<BlacklistEntry>, BlacklistRecord> {
    return this.entries.listing((e) => this.view(e));
  }

  /** The active entry that blocks this principal, if any. */
  blocking(p: Principal): BlacklistEntry | undefined {
    const now = this.engine.now();
    for (const e of this.entries) {
      if (e.tenant !== p.tenant || e.endTimeMs <= now) continue;
      const hit =
        (e.blacklist_type === 'ClientId' && e.resource_name === p.clientId) ||
        (e.blacklist_type === 'User' && p.username !== undefined && e.resource_name === p.username) ||
        (e.blacklist_type === 'Ip' && p.ip !== undefined && e.resource_name === p.ip) ||
        (e.blacklist_type === 'ClientIdMatch' && wildcardMatches(e.resource_name, p.clientId)) ||
        (e.blacklist_type === 'UserMatch' && p.username !== undefined && wildcardMatches(e.resource_name, p.username)) ||
        (e.blacklist_type === 'IPCIDR' && p.ip !== undefined && cidrContains(e.resource_name, p.ip));
      if (hit) return e;
    }
    return undefined;
  }

  isBlocked(p: Principal): boolean {
    return this.blocking(p) !== undefined;
  }

  view(e: BlacklistEntry): BlacklistRecord {
    return {
      name: e.name,
      tenant: e.tenant,
      blacklist_type: e.blacklist_type,
      resource_name: e.resource_name,
      end_time: localTimeString(e.endTimeMs),
      desc: e.desc,
    };
  }
}
