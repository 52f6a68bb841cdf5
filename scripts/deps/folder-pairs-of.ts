import { dirname } from 'node:path';

/** What folder-pairs.ts reads of a module in dependency-cruiser's JSON output. */
export interface CruisedModule {
  source: string;
  dependencies: readonly { resolved: string; coreModule?: boolean; couldNotResolve?: boolean }[];
}

/** Two folders that import each other, with one import each way as evidence. */
interface FolderPair {
  a: string;
  b: string;
  aToB: string;
  bToA: string;
}

const isOurs = (path: string) => !path.includes('node_modules') && path.endsWith('.ts');

/** Every pair of folders (by full path, so a parent and its child count) that import each other. */
export function folderPairs(modules: readonly CruisedModule[]): FolderPair[] {
  // One import as evidence per folder → folder edge.
  const edges = new Map<string, string>();
  for (const m of modules) {
    if (!isOurs(m.source)) continue;
    for (const d of m.dependencies) {
      if (d.coreModule || d.couldNotResolve || !isOurs(d.resolved)) continue;
      const from = dirname(m.source);
      const to = dirname(d.resolved);
      if (from !== to && !edges.has(`${from}\0${to}`)) edges.set(`${from}\0${to}`, `${m.source} → ${d.resolved}`);
    }
  }
  const pairs: FolderPair[] = [];
  for (const [key, aToB] of edges) {
    const [a, b] = key.split('\0') as [string, string];
    const bToA = edges.get(`${b}\0${a}`);
    if (a < b && bToA) pairs.push({ a, b, aToB, bToA });
  }
  return pairs.sort((x, y) => (x.a + x.b).localeCompare(y.a + y.b));
}
