/**
 * MQTT topic filter matching: `+` matches one level, a trailing `#` matches the rest (including the
 * parent level), and topics starting with `$` are not matched by a leading wildcard (MQTT 5, 4.7.2).
 */
export function topicMatchesFilter(topic: string, filter: string): boolean {
  if (filter.startsWith('$share/')) {
    const rest = filter.split('/').slice(2).join('/');
    return topicMatchesFilter(topic, rest);
  }
  const t = topic.split('/');
  const f = filter.split('/');
  if (topic.startsWith('$') && (f[0] === '+' || f[0] === '#')) return false;
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return i === f.length - 1;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return t.length === f.length;
}
