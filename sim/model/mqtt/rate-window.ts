/**
 * Connects and publishes admitted in the current virtual second, for the rate quotas. The counts
 * start afresh when a new second is first looked at.
 */
export class RateWindow {
  private second = -1;
  private connects = new Map<string, number>();
  private connectsAll = 0;
  private publishes = new Map<string, number>();

  constructor(private readonly nowSeconds: () => number) {}

  /** Starts a new window when the virtual second moved on. */
  roll(): void {
    const second = this.nowSeconds();
    if (second === this.second) return;
    this.second = second;
    this.connects = new Map();
    this.connectsAll = 0;
    this.publishes = new Map();
  }

  connectsOf(tenant: string): number {
    return this.connects.get(tenant) ?? 0;
  }

  get connectsTotal(): number {
    return this.connectsAll;
  }

  countConnect(tenant: string): void {
    this.connects.set(tenant, (this.connects.get(tenant) ?? 0) + 1);
    this.connectsAll++;
  }

  publishesOf(tenant: string): number {
    return this.publishes.get(tenant) ?? 0;
  }

  countPublish(tenant: string): void {
    this.publishes.set(tenant, (this.publishes.get(tenant) ?? 0) + 1);
  }
}
