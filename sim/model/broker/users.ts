import { failed } from '../errors/operation-error.ts';
import { unixSeconds } from '../api/time-format.ts';
import { deferredPasswordHash, verifyPassword, type PasswordHash } from '../auth/password-hash.ts';
import type { UserRecord } from '../../../contract/records.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import type { IndexedList } from '../api/indexed-list.ts';
import type { IndexEntry } from '../api/record-index.ts';
import { TenantScopedStore } from './tenant-scoped-store.ts';

export interface User {
  tenant: string;
  username: string;
  /** Only the salted hash is kept; the password itself never is, and never leaves the server. */
  password: PasswordHash;
  is_superuser: boolean;
  createdAt: number;
}

/** MQTT users per tenant. */
export class Users {
  private readonly store = new TenantScopedStore<User>({ viewFields: { create_time: (u) => unixSeconds(u.createdAt) } });
  private rng!: SeededRandom;
  /** Replay only: the hash the next create stores instead of hashing its password (see useRecordedHash). */
  private recordedHash: PasswordHash | undefined;

  constructor(private readonly engine: Pick<SimEngine, 'now' | 'record' | 'random'>) {}

  start(): void {
    this.rng = this.engine.random.fork('users');
  }

  seedDemo(): void {
    this.create({ tenant: 'default', username: 'dashboard', password: 'dashboard-secret', is_superuser: true });
    this.create({ tenant: 'acme', username: 'sensor-gateway', password: 'gw-secret-1', is_superuser: false });
    this.create({ tenant: 'acme', username: 'ops', password: 'ops-secret', is_superuser: true });
    this.create({ tenant: 'globex', username: 'telemetry', password: 'telemetry-secret', is_superuser: false });
  }

  create(input: { tenant: string; username: string; password: string; is_superuser: boolean }): void {
    if (this.store.has(input.tenant, input.username)) throw failed(`User ${input.username} already exists in tenant ${input.tenant}`);
    const user: User = {
      tenant: input.tenant,
      username: input.username,
      password: this.passwordHash(input.password, this.rng.bytes(16)),
      is_superuser: input.is_superuser,
      createdAt: this.engine.now(),
    };
    this.store.set(input.tenant, input.username, user);
    this.engine.record('user.create', { tenant: user.tenant, username: user.username, superuser: user.is_superuser });
  }

  /**
   * A state file keeps a created user's stored hash, not the password (sim/io/state/journal-secrets.ts):
   * its replay hands the hash here before re-running the create, which then stores it as it is. The
   * salt is still drawn, so the seeded generator moves on as it did, and must come out as recorded
   * (a different one means this run is not the recorded one). Cleared with `undefined` after the write.
   */
  useRecordedHash(hash: PasswordHash | undefined): void {
    this.recordedHash = hash;
  }

  private passwordHash(password: string, salt: Buffer): PasswordHash {
    const recorded = this.recordedHash;
    if (!recorded) return deferredPasswordHash(password, salt);
    this.recordedHash = undefined;
    const drawn = salt.toString('hex');
    // Short: the replay quotes the start of the answer this becomes.
    if (recorded.salt !== drawn)
      throw new Error(`the replayed user create drew salt ${drawn.slice(0, 8)}…, not the recorded ${recorded.salt.slice(0, 8)}…`);
    return { salt: recorded.salt, hash: recorded.hash };
  }

  delete(tenant: string, username: string): void {
    if (!this.store.delete(tenant, username)) throw failed(`User ${username} does not exist in tenant ${tenant}`);
    this.engine.record('user.delete', { tenant, username });
  }

  /** Checks MQTT credentials (constant time in the password's content). */
  authenticate(tenant: string, username: string, password: string): boolean {
    const user = this.store.get(tenant, username);
    return user !== undefined && verifyPassword(password, user.password);
  }

  get(tenant: string, username: string): User | undefined {
    return this.store.get(tenant, username);
  }

  all(): User[] {
    return this.store.all();
  }

  /** The user list, served from the store's sorted indexes. */
  listing(): IndexedList<IndexEntry<User>, UserRecord> {
    return this.store.listing((u) => this.view(u));
  }

  view(u: User): UserRecord {
    return { tenant: u.tenant, username: u.username, is_superuser: u.is_superuser, create_time: unixSeconds(u.createdAt) };
  }
}
