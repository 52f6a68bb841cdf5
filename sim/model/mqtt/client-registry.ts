import { unixSeconds } from '../api/time-format.ts';
import type { IndexedList, ListVersion } from '../api/indexed-list.ts';
import { RecordIndex, type IndexEntry } from '../api/record-index.ts';
import { clientRecord, sessionRecord, type ClientRecordView, type SessionRecordView } from './client-views.ts';
import { clientKey, type ClientState, type LiveConnection } from './mqtt-model.ts';

/**
 * The broker's clients (connected, or disconnected with a live session) and the counts kept beside
 * them: live connections per node and tenant, sessions per tenant, and the changes that version the
 * client and session lists.
 */
export class ClientRegistry {
  /**
   * Changes of anything the client and session lists show (clients come and go, connections,
   * sessions, heartbeat seconds): their list version, so their responses are cached until the next.
   */
  changes = 0;
  /** Heartbeats in a new second: the client list shows them, the session list does not. */
  private heartbeatSeconds = 0;
  /** Live connections whose client is on the network: its sink's in-flight counts and topic aliases change unseen. */
  networkSinks = 0;
  /** The session list's version owner (its version counts other changes than the client list's). */
  private readonly sessionsVersionOwner = {};
  /** In arrival order; the client and session lists are read from it (sampled scans). */
  private readonly clients = new RecordIndex<ClientState>({
    viewFields: { tenant: (c) => c.tenant, client_id: (c) => c.clientId },
    otherFieldsFromView: clientRecord,
  });
  /** Live connections per `${nodeId}\0${tenant}`, per node, and in all. */
  private readonly liveByNodeTenant = new Map<string, number>();
  readonly liveByNode = new Map<number, number>();
  liveTotal = 0;
  private readonly sessionsByTenant = new Map<string, number>();

  get(key: string): ClientState | undefined {
    return this.clients.get(key);
  }

  add(key: string, client: ClientState): void {
    this.clients.set(key, client);
  }

  /** Forgets a client with neither a connection nor a session. */
  forgetIfIdle(client: ClientState): void {
    if (!client.connection && !client.session && this.clients.delete(clientKey(client.tenant, client.clientId))) this.changes++;
  }

  [Symbol.iterator](): IterableIterator<ClientState> {
    return this.clients[Symbol.iterator]();
  }

  forEachRecord(visit: (client: ClientState) => void): void {
    this.clients.forEachRecord(visit);
  }

  get size(): number {
    return this.clients.size;
  }

  liveOn(nodeId: number, tenant: string): number {
    return this.liveByNodeTenant.get(`${nodeId}\u0000${tenant}`) ?? 0;
  }

  countLive(nodeId: number, tenant: string, delta: number): void {
    const k = `${nodeId}\u0000${tenant}`;
    this.liveByNodeTenant.set(k, (this.liveByNodeTenant.get(k) ?? 0) + delta);
    this.liveByNode.set(nodeId, (this.liveByNode.get(nodeId) ?? 0) + delta);
    this.liveTotal += delta;
  }

  sessionsOf(tenant: string): number {
    return this.sessionsByTenant.get(tenant) ?? 0;
  }

  countSession(tenant: string, delta: number): void {
    const n = (this.sessionsByTenant.get(tenant) ?? 0) + delta;
    if (n > 0) this.sessionsByTenant.set(tenant, n);
    else this.sessionsByTenant.delete(tenant);
  }

  sessionCount(): number {
    let n = 0;
    for (const count of this.sessionsByTenant.values()) n += count;
    return n;
  }

  /** A connection's last heartbeat; the lists show it in seconds, so a new second is a change of them. */
  heartbeatAt(conn: LiveConnection, now: number): void {
    if (unixSeconds(now) !== unixSeconds(conn.lastHeartbeatAt)) this.heartbeatSeconds++;
    conn.lastHeartbeatAt = now;
  }

  /**
   * The client and session lists' versions. The client list shows a network client's in-flight counts
   * and topic aliases, read from its connection as they are: no version while one is connected.
   */
  private listVersion(list: 'client' | 'session'): ListVersion | undefined {
    if (list === 'session') return { owner: this.sessionsVersionOwner, version: this.changes };
    return this.networkSinks > 0 ? undefined : { owner: this.clients, version: this.changes + this.heartbeatSeconds };
  }

  clientListing(): IndexedList<IndexEntry<ClientState>, ClientRecordView> {
    return this.clients.listing(clientRecord, { listVersion: this.listVersion('client') });
  }

  sessionListing(): IndexedList<IndexEntry<ClientState>, SessionRecordView> {
    return this.clients.listing(sessionRecord, {
      where: (c) => c.session !== null,
      fieldsFromView: sessionRecord,
      listVersion: this.listVersion('session'),
    });
  }
}
