import { describe, expect, it } from 'vitest';
import { CONTRACT } from '../../contract/index.ts';
import {
  globToRegExp,
  matchesPattern,
  parseShard,
  selectEndpoints,
  SelectionError,
  selectionFlags,
  shardOf,
  splitPatterns,
} from './selection.ts';

const keys = (list: readonly { method: string; path: string }[]) => list.map((e) => `${e.method} ${e.path}`);

describe('endpoint selection', () => {
  it('globs: * stays in a segment, ** crosses segments, ? is one character, the rest is literal', () => {
    expect(globToRegExp('/api/cluster/tenant/*').test('/api/cluster/tenant/list')).toBe(true);
    expect(globToRegExp('/api/cluster/*').test('/api/cluster/tenant/list')).toBe(false);
    expect(globToRegExp('/api/cluster/**').test('/api/cluster/tenant/list')).toBe(true);
    expect(globToRegExp('/health/?eady').test('/health/ready')).toBe(true);
    expect(globToRegExp('cluster.tenant.(list)').test('cluster.tenant.(list)')).toBe(true);
    expect(globToRegExp('a.b').test('axb')).toBe(false);
  });

  it('matches a pattern against path, endpoint id, tag or METHOD path', () => {
    const list = CONTRACT.find((e) => e.method === 'GET' && e.path === '/api/cluster/tenant/list')!;
    for (const p of [
      '/api/cluster/tenant/*',
      '/api/**/list',
      list.id,
      'cluster.tenant.*',
      list.tag,
      'GET /api/cluster/tenant/*',
      'get /api/cluster/tenant/list',
    ])
      expect(matchesPattern(list, p), p).toBe(true);
    for (const p of ['/api/cluster/*', 'POST /api/cluster/tenant/*', 'users', 'cluster']) expect(matchesPattern(list, p), p).toBe(false);
  });

  it('applies --only, then --skip; patterns are comma-separated and repeatable', () => {
    expect(splitPatterns(['a, b', '', 'c,'])).toEqual(['a', 'b', 'c']);
    const { selected, inShard } = selectEndpoints(CONTRACT, {
      only: ['/api/cluster/tenant/*', 'users'],
      skip: ['POST /api/cluster/tenant/delete'],
    });
    expect(keys(selected).sort()).toEqual(
      keys(
        CONTRACT.filter(
          (e) =>
            (e.path.startsWith('/api/cluster/tenant/') || e.tag === 'users') &&
            !(e.method === 'POST' && e.path === '/api/cluster/tenant/delete'),
        ),
      ).sort(),
    );
    expect(inShard).toEqual(selected);
    // Contract order is kept.
    expect(selected.map((e) => CONTRACT.indexOf(e))).toEqual([...selected.map((e) => CONTRACT.indexOf(e))].sort((a, b) => a - b));
    expect(selectEndpoints(CONTRACT, { skip: ['mqtt'] }).selected).toHaveLength(
      CONTRACT.length - CONTRACT.filter((e) => e.tag === 'mqtt').length,
    );
  });

  it('refuses a pattern that matches nothing, and a selection that leaves nothing', () => {
    expect(() => selectEndpoints(CONTRACT, { only: ['tenant'] })).toThrow(SelectionError);
    expect(() => selectEndpoints(CONTRACT, { only: ['tenant'] })).toThrow(/--only "tenant" matches no endpoint: .*tenants/);
    expect(() => selectEndpoints(CONTRACT, { skip: ['/nope/*'] })).toThrow(/--skip "\/nope\/\*" matches no endpoint/);
    expect(() => selectEndpoints(CONTRACT, { only: ['tenants'], skip: ['tenants'] })).toThrow(/leaves no endpoint/);
  });

  it('parses i/n and refuses anything else', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
    for (const bad of ['0/2', '3/2', '1/0', '2', 'a/b', '1/2/3', '-1/2', '1/1001'])
      expect(() => parseShard(bad), bad).toThrow(SelectionError);
  });

  it('shards partition the selection: disjoint, balanced, union = the selection, for every count', () => {
    const { selected } = selectEndpoints(CONTRACT, { skip: ['mq9'] });
    for (const count of [1, 2, 3, 5, 7, selected.length, selected.length + 3]) {
      const shards = Array.from({ length: count }, (_, i) => shardOf(selected, { index: i + 1, count }));
      const all = shards.flat();
      expect(all).toHaveLength(selected.length);
      expect(new Set(all).size).toBe(selected.length);
      expect(keys(all).sort()).toEqual(keys(selected).sort());
      const sizes = shards.map((s) => s.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      // Deterministic: the same call gives the same shard.
      expect(shardOf(selected, { index: 1, count })).toEqual(shards[0]);
    }
    expect(selectEndpoints(CONTRACT, { only: ['tenants'], shard: { index: 2, count: 2 } }).inShard.map((e) => e.path)).toEqual(
      CONTRACT.filter((e) => e.tag === 'tenants')
        .filter((_, i) => i % 2 === 1)
        .map((e) => e.path),
    );
  });

  it('writes the flags back for the replay command, quoting globs for the shell', () => {
    expect(selectionFlags({})).toBe('');
    expect(selectionFlags({ only: ['/api/cluster/tenant/*', 'users'], skip: ["it's"], shard: { index: 1, count: 3 } })).toBe(
      ` --only '/api/cluster/tenant/*,users' --skip 'it'\\''s' --shard 1/3`,
    );
    expect(selectionFlags({ only: ['tenants'] })).toBe(' --only tenants');
  });
});
