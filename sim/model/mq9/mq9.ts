import { failed, unavailable } from '../errors/operation-error.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';
import type { IndexedList } from '../api/indexed-list.ts';
import type { IndexEntry } from '../api/record-index.ts';
import { TenantScopedStore } from '../broker/tenant-scoped-store.ts';
import type { Mailbox } from './mailbox.ts';
import { Mq9Messaging } from './mq9-messaging.ts';

export interface Agent {
  tenant: string;
  name: string;
  /** JSON text of an agent card. */
  agent_info: string;
  create_time: number;
}

/** An AGENT.REPORT as the real server appends it to its inner topic. */
export interface AgentReport {
  tenant: string;
  name: string;
  report_info: string;
  /** Unix seconds. */
  report_time: number;
}

/** Default mailbox lifetime when the create command gives none (the real server's default). */
export const DEFAULT_MAILBOX_TTL_SECONDS = 86_400;
/** AGENT.DISCOVER's page size when the request gives none. */
const DISCOVER_DEFAULT_LIMIT = 20;
/** Reports kept (the oldest go first), as a bounded inner topic would keep them. */
const MAX_AGENT_REPORTS = 1_000;

const NOT_RUNNING = "mq9 component is not running: the broker's lightweight agent-messaging (mq9) component is not running";

/**
 * mq9 mailboxes and agents. They are created by protocol commands (MAILBOX.CREATE, AGENT.REGISTER),
 * not over HTTP; the admin API only lists them. Mailboxes expire `ttl` seconds after creation.
 * The component can be switched off to simulate "component not running".
 */
export class Mq9 {
  private readonly mailboxes = new TenantScopedStore<Mailbox>();
  private readonly agents = new TenantScopedStore<Agent>();
  private readonly reports: AgentReport[] = [];
  private running = true;
  private rng!: SeededRandom;
  /** The messages of the mailboxes (MSG.SEND, FETCH, ACK, QUERY, DELETE). */
  readonly messages: Mq9Messaging;

  constructor(private readonly engine: Pick<SimEngine, 'now' | 'record' | 'after' | 'random'>) {
    this.messages = new Mq9Messaging(
      engine,
      (tenant, address) => this.mailboxes.get(tenant, address),
      () => this.requireRunning(),
    );
  }

  start(): void {
    this.rng = this.engine.random.fork('mq9');
  }

  seedDemo(): void {
    this.createMailbox({ name: 'support.inbox', ttl: 0, desc: 'support agent inbox' });
    this.createMailbox({ name: 'planner.tasks', ttl: 3600, desc: 'task queue of the planner agent' });
    this.createMailbox({ ttl: 600, desc: 'scratch mailbox' });
    this.registerAgent({
      name: 'planner',
      agent_info: JSON.stringify({ name: 'planner', description: 'plans multi-step jobs', skills: [{ id: 'plan', name: 'Plan' }] }),
    });
    this.registerAgent({
      name: 'translator',
      agent_info: JSON.stringify({ name: 'translator', description: 'translates text', skills: [{ id: 'translate', name: 'Translate' }] }),
    });
  }

  get isRunning(): boolean {
    return this.running;
  }

  setRunning(running: boolean): void {
    this.running = running;
    this.engine.record('mq9.running', { running });
  }

  private requireRunning(): void {
    if (!this.running) throw unavailable(NOT_RUNNING);
  }

  /** MAILBOX.CREATE (error texts as the real server's): `name` becomes the address (lowercase letters, digits, dots), else a fresh id. */
  createMailbox(input: { tenant?: string; name?: string; ttl?: number; desc?: string }): Mailbox {
    this.requireRunning();
    const tenant = input.tenant ?? 'default';
    const address = input.name ?? this.rng.id();
    if (address.length === 0) throw failed('prefix must not be empty');
    if (!/^[a-z0-9.]+$/.test(address)) throw failed('name may only contain lowercase letters, digits, and dots');
    if (!/^[a-z0-9](.*[a-z0-9])?$/.test(address)) throw failed('prefix must start and end with a lowercase letter or digit');
    const ttl = input.ttl ?? DEFAULT_MAILBOX_TTL_SECONDS;
    if (!Number.isInteger(ttl) || ttl < 0) throw failed(`mailbox ttl must be a whole number of seconds >= 0, got ${ttl}`);
    if (this.mailboxes.has(tenant, address)) throw failed(`mailbox ${address} already exists`);
    const box: Mailbox = { tenant, mail_address: address, desc: input.desc ?? '', ttl, create_time: this.engine.now() };
    this.mailboxes.set(tenant, address, box);
    this.engine.record('mq9.mailbox.create', { tenant, address, ttl });
    if (ttl > 0) {
      this.engine.after(ttl * 1000, 'mq9.mailbox.expire', () => {
        if (this.mailboxes.get(tenant, address) === box) {
          this.mailboxes.delete(tenant, address);
          this.messages.forget(tenant, address);
          this.engine.record('mq9.mailbox.expire', { tenant, address });
        }
      });
    }
    return box;
  }

  /** AGENT.REGISTER: an existing (tenant, name) is left as it is, as on the real server. */
  registerAgent(input: { tenant?: string; name: string; agent_info: string }): Agent {
    this.requireRunning();
    const tenant = input.tenant ?? 'default';
    if (input.name.length === 0) throw failed('agent name must not be empty');
    if (input.agent_info.length === 0) throw failed('agent_info must not be empty');
    const existing = this.agents.get(tenant, input.name);
    if (existing) return existing;
    const agent: Agent = { tenant, name: input.name, agent_info: input.agent_info, create_time: this.engine.now() };
    this.agents.set(tenant, input.name, agent);
    this.engine.record('mq9.agent.register', { tenant, name: input.name });
    return agent;
  }

  /** AGENT.UNREGISTER: idempotent. */
  unregisterAgent(tenant: string, name: string): void {
    this.requireRunning();
    if (name.length === 0) throw failed('agent name must not be empty');
    if (this.agents.delete(tenant, name)) this.engine.record('mq9.agent.unregister', { tenant, name });
  }

  /** AGENT.REPORT: appended as the real server appends it to its inner topic; the agent need not be registered. */
  reportAgent(input: { tenant?: string; name: string; reportInfo?: string }): AgentReport {
    this.requireRunning();
    if (input.name.length === 0) throw failed('agent name must not be empty');
    const report: AgentReport = {
      tenant: input.tenant ?? 'default',
      name: input.name,
      report_info: input.reportInfo ?? '',
      report_time: Math.floor(this.engine.now() / 1000),
    };
    this.reports.push(report);
    if (this.reports.length > MAX_AGENT_REPORTS) this.reports.shift();
    this.engine.record('mq9.agent.report', { tenant: report.tenant, name: report.name });
    return report;
  }

  /** The reports kept, oldest first. */
  agentReports(): AgentReport[] {
    return [...this.reports];
  }

  /**
   * AGENT.DISCOVER: without a query every agent of the tenant (the real list is not paged); with `text`
   * (or `semantic`, which needs the real server's vector-search build) the agents whose name or
   * agent_info contains it, ignoring case, paged by `limit` (20) and `page` (from 1).
   */
  discoverAgents(input: { tenant?: string; query?: string; limit?: number; page?: number }): { name: string; agent_info: string }[] {
    const tenant = input.tenant ?? 'default';
    const all = this.listAgents().filter((a) => a.tenant === tenant);
    const row = (a: Agent) => ({ name: a.name, agent_info: a.agent_info });
    const q = input.query?.toLowerCase() ?? '';
    if (q === '') return all.map(row);
    const limit = input.limit || DISCOVER_DEFAULT_LIMIT;
    const page = Math.max(1, input.page ?? 1);
    const hits = all.filter((a) => a.name.toLowerCase().includes(q) || a.agent_info.toLowerCase().includes(q));
    return hits.slice((page - 1) * limit, page * limit).map(row);
  }

  listMailboxes(): Mailbox[] {
    this.requireRunning();
    return this.mailboxes.all();
  }

  listAgents(): Agent[] {
    this.requireRunning();
    return this.agents.all();
  }

  /** The mailbox list (each as a copy), served from the store's sorted indexes. */
  mailboxListing(): IndexedList<IndexEntry<Mailbox>, Mailbox> {
    this.requireRunning();
    return this.mailboxes.listing((m) => ({ ...m }));
  }

  /** The agent list (each as a copy), served from the store's sorted indexes. */
  agentListing(): IndexedList<IndexEntry<Agent>, Agent> {
    this.requireRunning();
    return this.agents.listing((a) => ({ ...a }));
  }
}
