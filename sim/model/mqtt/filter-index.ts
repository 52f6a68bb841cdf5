/**
 * Topic filters indexed by level in a trie, so the filters matching a published topic are found by
 * walking the topic's levels (following the literal level, `+` and `#` children) instead of testing
 * every filter. Matching follows `topicMatches` exactly: `#` also matches its parent level
 * (`a/#` matches `a`), and a filter starting with a wildcard does not match a topic starting with `$`.
 */
interface TrieNode<V> {
  /** Created on first use: most nodes of 100,000 per-client filters are leaves with one value. */
  children: Map<string, TrieNode<V>> | null;
  /** Values whose filter ends at this node. */
  values: Set<V> | null;
}

const newNode = <V>(): TrieNode<V> => ({ children: null, values: null });

export class FilterIndex<V> {
  private readonly root: TrieNode<V> = newNode();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(filter: string, value: V): void {
    let node = this.root;
    for (const level of filter.split('/')) {
      node.children ??= new Map();
      let next = node.children.get(level);
      if (!next) node.children.set(level, (next = newNode()));
      node = next;
    }
    node.values ??= new Set();
    if (!node.values.has(value)) {
      node.values.add(value);
      this.count++;
    }
  }

  /** Removes `value` from `filter`, pruning emptied branches; false when it was not there. */
  remove(filter: string, value: V): boolean {
    const path: [TrieNode<V>, string][] = [];
    let node = this.root;
    for (const level of filter.split('/')) {
      const next = node.children?.get(level);
      if (!next) return false;
      path.push([node, level]);
      node = next;
    }
    if (!node.values?.delete(value)) return false;
    this.count--;
    for (let i = path.length - 1; i >= 0; i--) {
      const [parent, level] = path[i];
      const child = parent.children!.get(level)!;
      if ((child.values?.size ?? 0) > 0 || (child.children?.size ?? 0) > 0) break;
      parent.children!.delete(level);
      if (parent.children!.size === 0) parent.children = null;
    }
    return true;
  }

  /** Calls `visit` for every value whose filter matches `topic` (each once; order unspecified). */
  match(topic: string, visit: (value: V) => void): void {
    const levels = topic.split('/');
    this.walk(this.root, levels, 0, topic.startsWith('$'), visit);
  }

  private walk(node: TrieNode<V>, levels: readonly string[], i: number, system: boolean, visit: (value: V) => void): void {
    // Wildcards in the first level never match a `$` topic.
    const wildcardsAllowed = !(i === 0 && system);
    const children = node.children;
    if (wildcardsAllowed && children) {
      const hash = children.get('#');
      if (hash?.values) for (const v of hash.values) visit(v);
    }
    if (i === levels.length) {
      if (node.values) for (const v of node.values) visit(v);
      return;
    }
    if (!children) return;
    // Topic names hold no wildcards; were one there, its literal child is the wildcard's own node.
    const level = levels[i];
    const exact = level === '#' ? undefined : children.get(level);
    if (exact) this.walk(exact, levels, i + 1, system, visit);
    if (wildcardsAllowed && level !== '+') {
      const plus = children.get('+');
      if (plus) this.walk(plus, levels, i + 1, system, visit);
    }
  }
}
