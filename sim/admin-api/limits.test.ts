import { describe, expect, it } from 'vitest';
import { InProcessSim } from './in-process-client.ts';

/**
 * The spec's Limits table, written down again here on purpose: the test checks the contract and the
 * simulator against the spec, not against themselves.
 */
interface LimitCase {
  path: string;
  field: string;
  min: number;
  max: number;
  body: Record<string, unknown>;
  /** Builds the field's value of a given length (default: repeated letters). */
  make?: (len: number) => unknown;
}

const file = (len: number): string => {
  const base = '{"local_file_path":"/tmp/';
  const tail = '.log"}';
  if (len === 0) return '';
  return len < base.length + tail.length ? '{'.padEnd(len, ' ') : base + 'x'.repeat(len - base.length - tail.length) + tail;
};

const CASES: LimitCase[] = [
  { path: '/api/cluster/tenant/create', field: 'tenant_name', min: 1, max: 128, body: {} },
  { path: '/api/cluster/tenant/create', field: 'desc', min: 0, max: 500, body: { tenant_name: 'lim-desc' } },
  ...(['tenant', 'username', 'password'] as const).map((field, i) => ({
    path: '/api/cluster/user/create',
    field,
    min: 1,
    max: [64, 64, 128][i],
    body: { tenant: 't', username: 'u', password: 'p', is_superuser: false },
  })),
  ...(
    [
      ['tenant', 1, 64],
      ['name', 1, 128],
      ['desc', 0, 256],
      ['resource_name', 1, 256],
      ['topic', 0, 256],
      ['ip', 0, 128],
    ] as const
  ).map(([field, min, max]) => ({
    path: '/api/cluster/acl/create',
    field,
    min,
    max,
    body: { tenant: 't', name: 'n', resource_type: 'ClientId', resource_name: 'c', action: 'All', permission: 'Allow' },
  })),
  { path: '/api/cluster/topic/delete', field: 'topic_name', min: 1, max: 256, body: { tenant: 'default' } },
  ...(
    [
      ['tenant', 128],
      ['source_topic', 256],
      ['dest_topic', 256],
      ['regex', 500],
    ] as const
  ).map(([field, max]) => ({
    path: '/api/cluster/topic-rewrite/create',
    field,
    min: 1,
    max,
    body: { name: 'r', tenant: 't', action: 'All', source_topic: 's', dest_topic: 'd', regex: 'x' },
  })),
  ...(['name', 'tenant', 'topic'] as const).map((field) => ({
    path: '/api/mqtt/auto-subscribe/create',
    field,
    min: 1,
    max: 256,
    body: { name: 'a', tenant: 't', topic: 'x', qos: 0, no_local: false, retain_as_published: false, retained_handling: 0 },
  })),
  ...(
    [
      ['tenant', 256],
      ['connector_name', 128],
      ['connector_type', 50],
      ['config', 4096],
      ['topic_name', 256],
    ] as const
  ).map(([field, max]) => ({
    path: '/api/cluster/connector/create',
    field,
    min: 1,
    max,
    body: {
      tenant: 't',
      connector_name: 'c',
      connector_type: 'file',
      config: '{"local_file_path":"/tmp/l.log"}',
      topic_name: 'x/#',
      failure_strategy: { strategy: 'discard' },
    },
    ...(field === 'config' ? { make: file } : {}),
  })),
  {
    path: '/api/cluster/connector/create',
    field: 'failure_strategy.topic_name',
    min: 1,
    max: 256,
    body: { tenant: 't', connector_name: 'dlq', connector_type: 'file', config: '{"local_file_path":"/tmp/l.log"}', topic_name: 'x/#' },
    make: (len) => ({ strategy: 'dead_message_queue', retry_total_times: 1, wait_time_ms: 10, topic_name: 'd'.repeat(len) }),
  },
];

function bodyWith(c: LimitCase, len: number): Record<string, unknown> {
  const [top] = c.field.split('.');
  const value = c.make ? c.make(len) : 'a'.repeat(len);
  return { ...c.body, [top]: value };
}

/** True when the answer refuses the field for its length. */
function refusedForLength(res: { status: number; json: any }, field: string): boolean {
  return (
    res.status === 400 &&
    typeof res.json?.message === 'string' &&
    res.json.message.includes(field) &&
    /length|empty|characters/.test(res.json.message)
  );
}

describe('the Limits table, at lengths 0, 1, max and max+1', () => {
  for (const c of CASES) {
    it(`${c.path} ${c.field} ${c.min}-${c.max}`, async () => {
      const sim = new InProcessSim();
      const at = async (len: number) => {
        sim.advance(50);
        return sim.post(c.path, bodyWith(c, len));
      };
      const zero = await at(0);
      if (c.min >= 1) expect(refusedForLength(zero, c.field), `length 0: ${zero.text}`).toBe(true);
      else expect(refusedForLength(zero, c.field), `length 0: ${zero.text}`).toBe(false);
      for (const len of [1, c.max]) {
        const ok = await at(len);
        expect(refusedForLength(ok, c.field), `length ${len}: ${ok.text.slice(0, 300)}`).toBe(false);
        expect(ok.status).toBeLessThan(500);
      }
      const over = await at(c.max + 1);
      expect(refusedForLength(over, c.field), `length ${c.max + 1}: ${over.text.slice(0, 300)}`).toBe(true);
    });
  }
});
