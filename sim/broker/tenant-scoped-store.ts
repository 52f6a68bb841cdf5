/**
 * Records keyed by (tenant, name), kept in insertion order so every listing is deterministic.
 * The metadata stores of the broker (users, ACL, rules, schemas...) share this shape.
 */
export class TenantScopedStore<T> {
  private readonly records = new Map<string, T>();

  private key(tenant: string, name: string): string {
    return `${tenant}\u0000${name}`;
  }

  get(tenant: string, name: string): T | undefined {
    return this.records.get(this.key(tenant, name));
  }

  has(tenant: string, name: string): boolean {
    return this.records.has(this.key(tenant, name));
  }

  set(tenant: string, name: string, record: T): void {
    this.records.set(this.key(tenant, name), record);
  }

  /** Removes the record; false when there was none. */
  delete(tenant: string, name: string): boolean {
    return this.records.delete(this.key(tenant, name));
  }

  all(): T[] {
    return [...this.records.values()];
  }

  get size(): number {
    return this.records.size;
  }
}
