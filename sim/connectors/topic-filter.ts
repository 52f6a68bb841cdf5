/**
 * MQTT topic filters (MQTT 5.0 §4.7): `+` matches one level, `#` (last level only) matches the
 * parent level and everything below it. Wildcards at the first level do not match topics starting
 * with `$` (system topics).
 */

/** Why `filter` is not a valid topic filter, or null when it is. */
export function topicFilterProblem(filter: string): string | null {
  if (filter.length === 0) return 'a topic filter must not be empty';
  if (filter.includes('\u0000')) return 'a topic filter must not contain the NUL character';
  const levels = filter.split('/');
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i];
    if (level.includes('#') && (level !== '#' || i !== levels.length - 1)) {
      return `'#' must be a whole level and the last one (level ${i + 1} is ${JSON.stringify(level)})`;
    }
    if (level.includes('+') && level !== '+') return `'+' must be a whole level (level ${i + 1} is ${JSON.stringify(level)})`;
  }
  return null;
}

/** Whether `topic` (a topic name, no wildcards) matches the valid filter `filter`. */
export function topicMatchesFilter(filter: string, topic: string): boolean {
  if (topic.startsWith('$') && (filter.startsWith('+') || filter.startsWith('#'))) return false;
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true; // also matches the parent level: `a/#` matches `a`
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}
