import type { TopicRewriteRecord } from '../../../contract/records.ts';
import { failed, invalidParam } from '../errors/operation-error.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { IndexedList } from '../api/indexed-list.ts';
import type { IndexEntry } from '../api/record-index.ts';
import { TenantScopedStore } from './tenant-scoped-store.ts';
import { topicMatches } from '../topic-filter/topic-filter.ts';

export interface TopicRewriteRule {
  tenant: string;
  name: string;
  desc: string;
  action: 'All' | 'Publish' | 'Subscribe';
  source_topic: string;
  dest_topic: string;
  regex: string;
  createdAt: number;
}

/** A rule as the list shows it (the contract's record). */
export type TopicRewriteView = TopicRewriteRecord;

/**
 * Topic rewrite rules (EMQX semantics): a topic that matches `source_topic` and `regex` becomes
 * `dest_topic` with `$1`, `$2`... replaced by the regex groups. Among matching rules the most recently
 * created wins.
 */
export class TopicRewriteRules {
  private readonly store = new TenantScopedStore<TopicRewriteRule>();

  constructor(private readonly engine: Pick<SimEngine, 'now' | 'record'>) {}

  seedDemo(): void {
    this.create({
      tenant: 'acme',
      name: 'legacy-sensor-path',
      desc: 'old firmware publishes to sensor/<id>/temp',
      action: 'Publish',
      source_topic: 'sensor/+/temp',
      dest_topic: 'sensors/$1/temperature',
      regex: '^sensor/(.+)/temp$',
    });
  }

  create(rule: Omit<TopicRewriteRule, 'createdAt'>): void {
    try {
      new RegExp(rule.regex);
    } catch (e) {
      throw invalidParam('regex', `invalid parameter 'regex': not a valid regular expression (${(e as Error).message})`);
    }
    if (this.store.has(rule.tenant, rule.name))
      throw failed(`Topic rewrite rule '${rule.name}' for tenant '${rule.tenant}' already exists`);
    this.store.set(rule.tenant, rule.name, { ...rule, createdAt: this.engine.now() });
    this.engine.record('rewrite.create', { tenant: rule.tenant, name: rule.name });
  }

  delete(tenant: string, name: string): void {
    if (!this.store.delete(tenant, name)) throw failed(`Topic rewrite rule '${name}' for tenant '${tenant}' does not exist`);
    this.engine.record('rewrite.delete', { tenant, name });
  }

  all(): TopicRewriteRule[] {
    return this.store.all();
  }

  /** The rewrite-rule list, served from the store's sorted indexes. */
  listing(): IndexedList<IndexEntry<TopicRewriteRule>, TopicRewriteView> {
    return this.store.listing((r) => ({
      name: r.name,
      desc: r.desc,
      tenant: r.tenant,
      action: r.action,
      source_topic: r.source_topic,
      dest_topic: r.dest_topic,
      regex: r.regex,
    }));
  }

  /** The topic after rewriting for this action, or the topic itself when no rule applies. */
  rewrite(tenant: string, topic: string, action: 'Publish' | 'Subscribe'): string {
    const rules = this.store.all().filter((r) => r.tenant === tenant && (r.action === 'All' || r.action === action));
    for (let i = rules.length - 1; i >= 0; i--) {
      const r = rules[i];
      if (!topicMatches(r.source_topic, topic)) continue;
      const m = new RegExp(r.regex).exec(topic);
      if (!m) continue;
      return r.dest_topic.replace(/\$(\d+)/g, (_, n: string) => m[Number(n)] ?? '');
    }
    return topic;
  }
}
