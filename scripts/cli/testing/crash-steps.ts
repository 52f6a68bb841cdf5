/**
 * Test support for the crash torture (crash-torture.ts): the writes it makes, one kind per writable
 * family, each able to say after a restart whether it is there, absent, or only partly there.
 */
import type { ServerApi } from './crash-http.ts';

/** Where a write stands after a restart. `partial` is a half-applied write: always a failure. */
export type Presence = { state: 'present' } | { state: 'absent' } | { state: 'partial'; why: string };

export const PRESENT: Presence = { state: 'present' };
export const ABSENT: Presence = { state: 'absent' };
const partial = (why: string): Presence => ({ state: 'partial', why });

/** Reads of one life of the server, shared by every step's check; lists are read once per check. */
export class ServerView {
  private readonly lists = new Map<string, Promise<any[]>>();

  constructor(readonly api: ServerApi) {}

  list(path: string): Promise<any[]> {
    let rows = this.lists.get(path);
    if (!rows) this.lists.set(path, (rows = this.api.list(path)));
    return rows;
  }

  /** Every record of a topic, read page by page (a read answers at most 100 records from an offset). */
  async records(tenant: string, topic: string): Promise<{ offset: number; content: string }[]> {
    const key = `records ${tenant} ${topic}`;
    let rows = this.lists.get(key);
    if (!rows) this.lists.set(key, (rows = this.readAll(tenant, topic)));
    return rows;
  }

  private async readAll(tenant: string, topic: string): Promise<{ offset: number; content: string }[]> {
    const all: { offset: number; content: string }[] = [];
    for (let offset = 0; ;) {
      const page = (await this.api.read('/api/mqtt/message/read', { tenant, topic, offset }))?.messages ?? [];
      if (page.length === 0) return all;
      all.push(...page);
      offset = page[page.length - 1].offset + 1;
    }
  }
}

/** One write of a writer: made once, then checked after every later restart. */
export interface Step {
  /** For messages: the family and what is written, e.g. `user create cu12`. */
  readonly label: string;
  /**
   * The write sets a value that the writer's next write of the kind raises further, and its presence
   * is "the value is at least mine": a dropped one then looks present after a later one is made.
   */
  readonly overwrite?: true;
  /** Makes the write; resolves with its answer's data when acknowledged, throws otherwise. */
  run(): Promise<unknown>;
  /** Whether the write is there; `ack` is its answer's data when it was acknowledged. */
  presence(view: ServerView, ack: unknown): Promise<Presence>;
}

/** The tenant every torture write lives in (made before the first kill). */
export const TENANT = 'ct';
/** The topic the message writes append to. */
export const LOG_TOPIC = 'ct/log';

/**
 * A create whose record shows in a list: present when a row with that key has every expected field,
 * partial when the row is there with other values.
 */
export function createStep(args: {
  label: string;
  api: ServerApi;
  node: number;
  path: string;
  body: Record<string, unknown>;
  list: string;
  key: [string, string];
  expect: Record<string, unknown>;
}): Step {
  return {
    label: args.label,
    run: () => args.api.write(args.node, args.path, args.body),
    async presence(view) {
      const row = (await view.list(args.list)).find((r) => r[args.key[0]] === args.key[1]);
      return row ? compareFields(row, args.expect) : ABSENT;
    },
  };
}

/** Present when every expected field has its value; partial with the first one that differs. */
export function compareFields(row: Record<string, unknown>, expected: Record<string, unknown>): Presence {
  for (const [field, value] of Object.entries(expected)) {
    const actual = row[field];
    const same = value instanceof RegExp ? typeof actual === 'string' && value.test(actual) : actual === value;
    if (!same) return partial(`${field} is ${JSON.stringify(actual)}, written ${String(value)}`);
  }
  return PRESENT;
}
