import { failed } from '../errors/operation-error.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import { cidrContains } from './blacklist.ts';
import type { IndexedList } from '../api/indexed-list.ts';
import type { IndexEntry } from '../api/record-index.ts';
import { TenantScopedStore } from './tenant-scoped-store.ts';
import { topicMatches } from '../topic-filter/topic-filter.ts';

export interface AclRule {
  tenant: string;
  name: string;
  desc: string;
  resource_type: 'ClientId' | 'User' | 'Ip';
  resource_name: string;
  topic: string;
  ip: string;
  action: 'Publish' | 'Subscribe' | 'All';
  permission: 'Allow' | 'Deny';
}

/** What a client tries to do, for ACL checks. */
export interface AclRequest {
  tenant: string;
  clientId: string;
  username?: string;
  ip?: string;
  topic: string;
  action: 'Publish' | 'Subscribe';
}

function ipMatches(ruleIp: string, ip: string | undefined): boolean {
  if (ruleIp === '') return true;
  if (ip === undefined) return false;
  return ruleIp.includes('/') ? cidrContains(ruleIp, ip) : ruleIp === ip;
}

/** Whether a rule applies to a request: tenant, action, topic filter, address, then its resource. */
function ruleMatches(r: AclRule, req: AclRequest): boolean {
  if (r.tenant !== req.tenant) return false;
  if (r.action !== 'All' && r.action !== req.action) return false;
  if (r.topic !== '' && !topicMatches(r.topic, req.topic)) return false;
  if (!ipMatches(r.ip, req.ip)) return false;
  if (r.resource_type === 'ClientId') return r.resource_name === req.clientId;
  if (r.resource_type === 'User') return req.username !== undefined && r.resource_name === req.username;
  return true; // Ip rules are decided by their address range alone
}

/** ACL rules; a name is unique within its tenant. */
export class AclRules {
  private readonly store = new TenantScopedStore<AclRule>();

  constructor(private readonly engine: Pick<SimEngine, 'record'>) {}

  seedDemo(): void {
    this.create({
      tenant: 'acme',
      name: 'gateway-publish-sensors',
      desc: 'gateway may publish sensor data',
      resource_type: 'User',
      resource_name: 'sensor-gateway',
      topic: 'sensors/#',
      ip: '',
      action: 'Publish',
      permission: 'Allow',
    });
    this.create({
      tenant: 'acme',
      name: 'deny-admin-topics',
      desc: '',
      resource_type: 'ClientId',
      resource_name: 'sensor-rogue-01',
      topic: 'admin/#',
      ip: '',
      action: 'All',
      permission: 'Deny',
    });
    this.create({
      tenant: 'globex',
      name: 'lab-network-subscribe',
      desc: 'lab hosts may read everything',
      resource_type: 'Ip',
      resource_name: 'lab',
      topic: '#',
      ip: '10.20.0.0/16',
      action: 'Subscribe',
      permission: 'Allow',
    });
  }

  create(rule: AclRule): void {
    if (this.store.has(rule.tenant, rule.name)) throw failed(`ACL rule ${rule.name} already exists in tenant ${rule.tenant}`);
    this.store.set(rule.tenant, rule.name, { ...rule });
    this.engine.record('acl.create', { tenant: rule.tenant, name: rule.name });
  }

  delete(tenant: string, name: string): void {
    if (!this.store.delete(tenant, name)) throw failed(`ACL rule ${name} does not exist in tenant ${tenant}`);
    this.engine.record('acl.delete', { tenant, name });
  }

  all(): AclRule[] {
    return this.store.all();
  }

  /** The ACL list (each rule as a copy), served from the store's sorted indexes. */
  listing(): IndexedList<IndexEntry<AclRule>, AclRule> {
    return this.store.listing((r) => ({ ...r }));
  }

  /**
   * The permission of the first matching rule (Deny rules are looked at before Allow rules), or
   * undefined when no rule speaks about the request.
   */
  decide(req: AclRequest): AclRule['permission'] | undefined {
    // Every publish and subscribe asks: a loop, not a filtered array per request.
    let matched = false;
    for (const r of this.store.all()) {
      if (!ruleMatches(r, req)) continue;
      if (r.permission === 'Deny') return 'Deny';
      matched = true;
    }
    return matched ? 'Allow' : undefined;
  }
}
