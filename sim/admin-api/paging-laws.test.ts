import { describe, expect, it } from 'vitest';
import { CONTRACT } from '../../contract/index.ts';
import type { EndpointContract } from '../../contract/core/types.ts';
import { InProcessSim } from './in-process-client.ts';

const LISTS = CONTRACT.filter((e) => e.list && !e.params.some((p) => p.required));

async function page(
  sim: InProcessSim,
  e: EndpointContract,
  params: Record<string, string | number>,
): Promise<{ data: any[]; total_count: number }> {
  sim.advance(30);
  const res =
    e.method === 'GET'
      ? await sim.get(`${e.path}?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`)
      : await sim.post(e.path, params);
  expect(res.json?.code, `${e.id} ${JSON.stringify(params)}: ${res.text.slice(0, 200)}`).toBe(0);
  return res.json.data;
}

function keyOf(v: unknown): number | string {
  if (v === null || v === undefined) return '';
  return typeof v === 'number' ? v : typeof v === 'string' ? v : JSON.stringify(v);
}

describe('paging laws on every list endpoint (demo workload)', () => {
  const sim = new InProcessSim({ workload: 'demo', seed: 5 });
  sim.advance(10 * 60_000);

  for (const e of LISTS) {
    it(`${e.method} ${e.path}`, async () => {
      const all = await page(sim, e, { limit: 10_000 });
      expect(all.total_count).toBeGreaterThanOrEqual(all.data.length);
      const n = all.data.length;
      const k = 3;
      const parts: any[] = [];
      for (let p = 1; p <= Math.ceil(n / k); p++) {
        const got = await page(sim, e, { limit: k, page: p });
        expect(got.data.length).toBeLessThanOrEqual(k);
        expect(got.total_count).toBe(all.total_count);
        parts.push(...got.data);
      }
      expect(parts).toEqual(all.data);
      const past = await page(sim, e, { limit: k, page: Math.ceil(n / k) + 1 });
      expect(past.data).toEqual([]);

      for (const field of e.list!.sortFields) {
        const asc = (await page(sim, e, { limit: 10_000, sort_field: field, sort_by: 'asc' })).data.map((r) => keyOf(r[field]));
        const desc = (await page(sim, e, { limit: 10_000, sort_field: field, sort_by: 'desc' })).data.map((r) => keyOf(r[field]));
        for (let i = 1; i < asc.length; i++) expect(asc[i - 1] <= asc[i], `${field} asc at ${i}`).toBe(true);
        for (let i = 1; i < desc.length; i++) expect(desc[i - 1] >= desc[i], `${field} desc at ${i}`).toBe(true);
        expect([...asc].reverse()).toEqual(desc);
      }
    });
  }
});
