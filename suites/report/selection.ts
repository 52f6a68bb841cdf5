import type { ShardSpec } from '../conform/report-model.ts';

/**
 * Which endpoints a run checks: `--only` and `--skip` patterns, then `--shard i/n`. A pattern names
 * endpoints by path glob (`/api/cluster/tenant/*`), endpoint id glob (`cluster.*`), tag (`tenants`),
 * or method and path glob (`POST /api/cluster/tenant/*`). In globs `*` stays within one path segment,
 * `**` crosses segments and `?` is one character.
 */

/** A mistake in a selection flag; the CLI reports it with exit status 2. */
export class SelectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectionError';
  }
}

/** What a pattern is matched against. */
export interface Selectable {
  id: string;
  method: string;
  path: string;
  tag: string;
}

export interface SelectionSpec {
  /** Patterns: an array (one per flag), or one string as one flag gives it. */
  only?: string | readonly string[];
  skip?: string | readonly string[];
  shard?: ShardSpec;
}

export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else source += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Flag values as patterns: comma-separated, repeatable, blanks dropped (one string is one flag's value). */
export function splitPatterns(values: string | readonly string[] | undefined): string[] {
  return (typeof values === 'string' ? [values] : (values ?? []))
    .flatMap((v) => v.split(','))
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

const METHOD_AND_PATH = /^([A-Za-z]+)\s+(\/\S*)$/;

export function matchesPattern(e: Selectable, pattern: string): boolean {
  const methodAndPath = METHOD_AND_PATH.exec(pattern);
  if (methodAndPath) return e.method.toUpperCase() === methodAndPath[1].toUpperCase() && globToRegExp(methodAndPath[2]).test(e.path);
  const re = globToRegExp(pattern);
  if (pattern.startsWith('/')) return re.test(e.path);
  return re.test(e.tag) || re.test(e.id);
}

/** `i/n` with 1 ≤ i ≤ n. */
export function parseShard(spec: string): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(spec);
  if (!m) throw new SelectionError(`--shard must look like i/n (e.g. 2/4), got ${JSON.stringify(spec)}.`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > 1000) throw new SelectionError(`--shard: the shard count must be between 1 and 1000, got ${count}.`);
  if (index < 1 || index > count) throw new SelectionError(`--shard: the shard number must be between 1 and ${count}, got ${index}.`);
  return { index, count };
}

/**
 * Shard `index` of `count`: the items at positions index-1, index-1+count, … Round robin keeps the
 * shards within one endpoint of each other in size and spreads every tag over all of them; the
 * shards of one selection partition it, whatever the count.
 */
export function shardOf<T>(items: readonly T[], shard: ShardSpec | undefined): T[] {
  if (!shard) return [...items];
  return items.filter((_, i) => i % shard.count === shard.index - 1);
}

export interface SelectionResult<T> {
  /** Endpoints left by only/skip, in contract order. */
  selected: T[];
  /** The selected endpoints of this shard (all of them without a shard). */
  inShard: T[];
  only: string[];
  skip: string[];
}

function tagList(all: readonly Selectable[]): string {
  return [...new Set(all.map((e) => e.tag))].join(', ');
}

/**
 * Applies `only`, then `skip`, then the shard. A pattern that matches no endpoint of the contract is
 * an error: a typo must not silently check nothing (or everything).
 */
export function selectEndpoints<T extends Selectable>(all: readonly T[], spec: SelectionSpec): SelectionResult<T> {
  const only = splitPatterns(spec.only);
  const skip = splitPatterns(spec.skip);
  for (const [flag, patterns] of [
    ['--only', only],
    ['--skip', skip],
  ] as const) {
    for (const p of patterns) {
      if (!all.some((e) => matchesPattern(e, p))) {
        throw new SelectionError(
          `${flag} ${JSON.stringify(p)} matches no endpoint: use a path glob (/api/cluster/tenant/*), an endpoint id glob (cluster.*) or a tag (${tagList(all)}).`,
        );
      }
    }
  }
  const selected = all.filter(
    (e) => (only.length === 0 || only.some((p) => matchesPattern(e, p))) && !skip.some((p) => matchesPattern(e, p)),
  );
  if (selected.length === 0)
    throw new SelectionError(`--only ${only.join(',')}${skip.length ? ` with --skip ${skip.join(',')}` : ''} leaves no endpoint to check.`);
  return { selected, inShard: shardOf(selected, spec.shard), only, skip };
}

const SHELL_SAFE = /^[A-Za-z0-9_./,:=@%+-]+$/;

export function shellArg(value: string): string {
  return SHELL_SAFE.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The command-line flags that make the same selection, with a leading space ('' for none). */
export function selectionFlags(spec: SelectionSpec): string {
  const parts: string[] = [];
  const only = splitPatterns(spec.only);
  const skip = splitPatterns(spec.skip);
  if (only.length) parts.push('--only', shellArg(only.join(',')));
  if (skip.length) parts.push('--skip', shellArg(skip.join(',')));
  if (spec.shard) parts.push('--shard', `${spec.shard.index}/${spec.shard.count}`);
  return parts.length ? ` ${parts.join(' ')}` : '';
}
