import { describe, expect, it } from 'vitest';
import { folderPairs, type CruisedModule } from './folder-pairs-of.ts';

const mod = (source: string, ...imports: string[]): CruisedModule => ({ source, dependencies: imports.map((resolved) => ({ resolved })) });

describe('folderPairs', () => {
  it('finds a parent and its child that import each other, with one import each way', () => {
    const pairs = folderPairs([mod('a/index.ts', 'a/child/part.ts'), mod('a/child/part.ts', 'a/types.ts'), mod('a/types.ts')]);
    expect(pairs).toEqual([{ a: 'a', b: 'a/child', aToB: 'a/index.ts → a/child/part.ts', bToA: 'a/child/part.ts → a/types.ts' }]);
  });

  it('finds siblings that import each other, and nothing for one-way imports, same-folder imports or packages', () => {
    expect(folderPairs([mod('x/p.ts', 'y/q.ts'), mod('y/q.ts', 'x/r.ts')]).map((p) => `${p.a}⇄${p.b}`)).toEqual(['x⇄y']);
    expect(
      folderPairs([
        mod('a/index.ts', 'a/core/types.ts', 'a/child/part.ts', 'a/helper.ts'),
        mod('a/child/part.ts', 'a/core/types.ts', 'node_modules/zod/index.ts'),
        mod('node_modules/zod/index.ts', 'a/child/part.ts'),
      ]),
    ).toEqual([]);
  });
});
