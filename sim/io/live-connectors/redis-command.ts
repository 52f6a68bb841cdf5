import type { QueuedMessage } from '../../model/connectors/connector-types.ts';

/**
 * The `command_template` of a live `redis` connector. Syntax (decision): the template is split on
 * whitespace into the command's arguments (no quoting); then, inside each argument, these
 * placeholders are replaced:
 *   ${topic}      the MQTT topic the message was published to
 *   ${payload}    the payload (one argument even when it contains spaces)
 *   ${key}        the message key, empty when the message has none
 *   ${timestamp}  the publish time, Unix milliseconds (virtual clock)
 * Example: `RPUSH mqsim:${topic} ${payload}`, `HSET readings ${topic} ${payload}`.
 * Any other `${...}` is refused when the sink is built.
 */
const REDIS_PLACEHOLDERS = ['topic', 'payload', 'key', 'timestamp'] as const;

export interface RedisCommandTemplate {
  render(msg: QueuedMessage): [command: string, ...args: string[]];
}

export function parseRedisTemplate(template: string): RedisCommandTemplate {
  const parts = template
    .trim()
    .split(/\s+/)
    .filter((p) => p.length > 0);
  if (parts.length === 0) throw new Error('command_template is empty');
  for (const m of template.matchAll(/\$\{([^}]*)\}/g)) {
    if (!(REDIS_PLACEHOLDERS as readonly string[]).includes(m[1])) {
      throw new Error(
        `command_template uses unknown placeholder \${${m[1]}}; known: ${REDIS_PLACEHOLDERS.map((p) => `\${${p}}`).join(', ')}`,
      );
    }
  }
  if (parts[0].includes('${')) throw new Error('command_template must start with a command name, not a placeholder');
  return {
    render(msg) {
      const values: Record<string, string> = {
        topic: msg.topic,
        payload: msg.payload,
        key: msg.key ?? '',
        timestamp: String(msg.timestamp),
      };
      const args = parts.slice(1).map((p) => p.replace(/\$\{([a-z]+)\}/g, (_, name: string) => values[name]));
      return [parts[0], ...args];
    },
  };
}
