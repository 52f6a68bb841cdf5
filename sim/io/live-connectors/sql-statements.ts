import type { NormalisedConfig } from '../../model/connectors/config-validator.ts';
import type { QueuedMessage } from '../../model/connectors/connector-types.ts';
import { cfgBool, cfgStr } from './sink-support.ts';

/**
 * The statements a live `mysql` / `postgres` connector runs for one batch. Pure, so it is tested
 * without a database.
 *
 * Default column layouts (decision, matching the placeholders of each type's `sql_template`):
 * - mysql:    (record_key, payload, timestamp) — record_key = the message key, or the topic when
 *             the message has none (so an upsert on record_key keeps the latest message per topic);
 *             payload = text; timestamp = Unix ms (BIGINT).
 * - postgres: (client_id, topic, timestamp, payload, data) — client_id = the message key or ''
 *             (the broker does not hand connectors the publisher's id); timestamp = Unix ms (BIGINT);
 *             payload = text; data = the message as JSON text {topic, payload, timestamp(s), key?}
 *             (fits a TEXT, JSON or JSONB column).
 * `enable_batch_insert`: one multi-row INSERT per batch (all rows succeed or fail together);
 * otherwise one INSERT per message (a failing row fails only its message).
 * `enable_upsert` + `conflict_columns`: mysql `ON DUPLICATE KEY UPDATE` (MySQL picks the unique key
 * itself; conflict_columns are the columns left unchanged), postgres `ON CONFLICT (cols) DO UPDATE`;
 * the other columns take the new values.
 * `sql_template`: run once per message with the placeholders bound in the layout's order; batch
 * insert and upsert do not apply (the template is the whole statement).
 */
export interface SqlStatement {
  text: string;
  values: unknown[];
  /** The messages this statement writes; they fail together. */
  messages: QueuedMessage[];
}

type Dialect = 'mysql' | 'postgres';

const COLUMNS: Record<Dialect, readonly string[]> = {
  mysql: ['record_key', 'payload', 'timestamp'],
  postgres: ['client_id', 'topic', 'timestamp', 'payload', 'data'],
};

function rowValues(dialect: Dialect, msg: QueuedMessage): unknown[] {
  if (dialect === 'mysql') return [msg.key ?? msg.topic, msg.payload, msg.timestamp];
  const data = JSON.stringify({
    topic: msg.topic,
    payload: msg.payload,
    timestamp: Math.floor(msg.timestamp / 1000),
    ...(msg.key !== undefined ? { key: msg.key } : {}),
  });
  return [msg.key ?? '', msg.topic, msg.timestamp, msg.payload, data];
}

/** Quotes `schema.table` or a column for the dialect; every dot-separated part is quoted. */
export function quoteIdent(dialect: Dialect, name: string): string {
  const q = dialect === 'mysql' ? '`' : '"';
  return name
    .split('.')
    .map(
      (part) =>
        q +
        part
          .trim()
          .split(q)
          .join(q + q) +
        q,
    )
    .join('.');
}

function conflictColumns(config: NormalisedConfig): string[] {
  return cfgStr(config, 'conflict_columns')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c.length > 0);
}

function placeholders(dialect: Dialect, rows: number, width: number): string {
  let n = 0;
  const row = (): string => `(${Array.from({ length: width }, () => (dialect === 'mysql' ? '?' : `$${++n}`)).join(', ')})`;
  return Array.from({ length: rows }, row).join(', ');
}

function upsertClause(dialect: Dialect, config: NormalisedConfig): string {
  if (!cfgBool(config, 'enable_upsert', false)) return '';
  const conflict = conflictColumns(config);
  const updated = COLUMNS[dialect].filter((c) => !conflict.includes(c));
  if (dialect === 'mysql') {
    const set = (updated.length > 0 ? updated : [COLUMNS.mysql[0]]).map(
      (c) => `${quoteIdent('mysql', c)} = VALUES(${quoteIdent('mysql', c)})`,
    );
    return ` ON DUPLICATE KEY UPDATE ${set.join(', ')}`;
  }
  const target = conflict.map((c) => quoteIdent('postgres', c)).join(', ');
  if (updated.length === 0) return ` ON CONFLICT (${target}) DO NOTHING`;
  return ` ON CONFLICT (${target}) DO UPDATE SET ${updated.map((c) => `${quoteIdent('postgres', c)} = EXCLUDED.${quoteIdent('postgres', c)}`).join(', ')}`;
}

export function sqlStatements(dialect: Dialect, config: NormalisedConfig, batch: readonly QueuedMessage[]): SqlStatement[] {
  const template = cfgStr(config, 'sql_template').trim();
  if (template) return batch.map((msg) => ({ text: template, values: rowValues(dialect, msg), messages: [msg] }));
  const columns = COLUMNS[dialect];
  const head = `INSERT INTO ${quoteIdent(dialect, cfgStr(config, 'table'))} (${columns.map((c) => quoteIdent(dialect, c)).join(', ')}) VALUES `;
  const tail = upsertClause(dialect, config);
  const groups = cfgBool(config, 'enable_batch_insert', false) ? [batch] : batch.map((m) => [m]);
  return groups
    .filter((g) => g.length > 0)
    .map((g) => ({
      text: head + placeholders(dialect, g.length, columns.length) + tail,
      values: g.flatMap((m) => rowValues(dialect, m)),
      messages: [...g],
    }));
}
