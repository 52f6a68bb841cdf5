/**
 * MQTT topic names, topic filters and shared-subscription paths (MQTT 5 §4.7, §4.8.2).
 */

/** A subscription path split into its share group (if any) and its topic filter. */
export type SubscriptionPath =
  { readonly shared: false; readonly filter: string } | { readonly shared: true; readonly group: string; readonly filter: string };

const SHARE_PREFIX = '$share/';

/** Why a topic filter is invalid, or undefined when it is valid. */
export function topicFilterProblem(filter: string): string | undefined {
  if (filter.length === 0) return 'a topic filter must not be empty';
  if (filter.includes('\u0000')) return 'a topic filter must not contain the null character';
  const levels = filter.split('/');
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i];
    if (level.includes('#') && (level !== '#' || i !== levels.length - 1))
      return `'#' must be the whole last level of a topic filter (in ${JSON.stringify(filter)})`;
    if (level.includes('+') && level !== '+') return `'+' must be a whole level of a topic filter (in ${JSON.stringify(filter)})`;
  }
  return undefined;
}

/** Why a topic name (the target of a publish) is invalid, or undefined when it is valid. */
export function topicNameProblem(topic: string): string | undefined {
  if (topic.length === 0) return 'a topic name must not be empty';
  if (topic.includes('+') || topic.includes('#'))
    return `a topic name must not contain the wildcards '+' or '#' (got ${JSON.stringify(topic)})`;
  if (topic.includes('\u0000')) return 'a topic name must not contain the null character';
  return undefined;
}

/** Parses `filter` or `$share/<group>/<filter>`; throws an Error with the reason when invalid. */
export function parseSubscriptionPath(path: string): SubscriptionPath {
  if (path.startsWith(SHARE_PREFIX)) {
    const rest = path.slice(SHARE_PREFIX.length);
    const slash = rest.indexOf('/');
    const group = slash < 0 ? rest : rest.slice(0, slash);
    const filter = slash < 0 ? '' : rest.slice(slash + 1);
    if (group.length === 0 || group.includes('+') || group.includes('#'))
      throw new Error(`invalid shared subscription ${JSON.stringify(path)}: the share name must be non-empty and free of wildcards`);
    const problem = topicFilterProblem(filter);
    if (problem) throw new Error(`invalid shared subscription ${JSON.stringify(path)}: ${problem}`);
    return { shared: true, group, filter };
  }
  const problem = topicFilterProblem(path);
  if (problem) throw new Error(problem);
  return { shared: false, filter: path };
}

/**
 * Whether `topic` matches `filter`. A filter starting with a wildcard does not match topics that
 * start with `$` (system topics), as MQTT requires.
 */
export function topicMatches(filter: string, topic: string): boolean {
  if (topic.startsWith('$') && (filter.startsWith('+') || filter.startsWith('#'))) return false;
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}
