/** Cumulative message counts: in (published), out (delivered) and dropped (not deliverable). */
export interface MessageTotals {
  in: number;
  out: number;
  dropped: number;
}

/**
 * Cumulative message counters of the broker, since start: cluster totals, per tenant (for
 * `/metrics`) and per topic name (the monitor's topic_in_num / topic_out_num, which have no tenant
 * parameter, so a topic name counts across tenants). The monitor turns them into per-interval deltas.
 */
export class MessageCounters {
  readonly totals: MessageTotals = { in: 0, out: 0, dropped: 0 };
  private readonly tenants = new Map<string, MessageTotals>();
  private readonly topics = new Map<string, { in: number; out: number }>();

  private tenant(name: string): MessageTotals {
    let t = this.tenants.get(name);
    if (!t) this.tenants.set(name, (t = { in: 0, out: 0, dropped: 0 }));
    return t;
  }

  private topic(name: string): { in: number; out: number } {
    let t = this.topics.get(name);
    if (!t) this.topics.set(name, (t = { in: 0, out: 0 }));
    return t;
  }

  countIn(tenant: string, topic: string): void {
    this.totals.in++;
    this.tenant(tenant).in++;
    this.topic(topic).in++;
  }

  countOut(tenant: string, topic: string): void {
    this.totals.out++;
    this.tenant(tenant).out++;
    this.topic(topic).out++;
  }

  countDropped(tenant: string, n = 1): void {
    this.totals.dropped += n;
    this.tenant(tenant).dropped += n;
  }

  /** Per-tenant totals, by tenant name ascending. */
  byTenant(): [string, MessageTotals][] {
    return [...this.tenants.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Per-topic-name totals, in first-seen order. */
  byTopic(): IterableIterator<[string, { in: number; out: number }]> {
    return this.topics.entries();
  }

  /** Forgets topic names that no longer exist in any tenant, so deleted topics do not hold memory. */
  retainTopics(exists: (name: string) => boolean): void {
    // Deleting the entry being visited is safe in a Map iteration.
    for (const name of this.topics.keys()) if (!exists(name)) this.topics.delete(name);
  }
}
