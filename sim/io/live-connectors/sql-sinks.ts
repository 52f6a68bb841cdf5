import { createPool as createMysqlPool, type Pool as MysqlPool } from 'mysql2/promise';
import pg from 'pg';
import type { Connector, QueuedMessage } from '../../model/connectors/connector-types.ts';
import type { SinkResult } from '../../model/connectors/simulated-sink.ts';
import { cfgInt, cfgStr, errorText, perMessage, type LiveSink } from './sink-support.ts';
import { sqlStatements, type SqlStatement } from './sql-statements.ts';

/**
 * Runs a batch's statements one after another; a failing statement fails its messages only.
 * Pools open connections on demand, so a restarted server is used again without any extra step.
 */
async function runStatements(
  batch: readonly QueuedMessage[],
  statements: SqlStatement[],
  run: (s: SqlStatement) => Promise<unknown>,
  label: string,
): Promise<SinkResult> {
  const errors = new Map<QueuedMessage, string>();
  for (const statement of statements) {
    try {
      await run(statement);
    } catch (e) {
      for (const msg of statement.messages) errors.set(msg, `${label}: ${errorText(e)}`);
    }
  }
  return perMessage(
    batch,
    batch.map((m) => errors.get(m) ?? null),
  );
}

/** `postgres` with pg: INSERT (batch / upsert / sql_template, see sql-statements.ts) into `table`. */
export class PostgresSink implements LiveSink {
  private readonly pool: pg.Pool;
  private readonly label: string;

  constructor(private readonly connector: Connector) {
    const { config } = connector;
    this.label = `postgres ${cfgStr(config, 'host')}:${cfgInt(config, 'port', 5432)}/${cfgStr(config, 'database')}`;
    this.pool = new pg.Pool({
      host: cfgStr(config, 'host'),
      port: cfgInt(config, 'port', 5432),
      database: cfgStr(config, 'database'),
      user: cfgStr(config, 'username'),
      password: cfgStr(config, 'password'),
      max: cfgInt(config, 'pool_size', 10),
      connectionTimeoutMillis: cfgInt(config, 'connect_timeout_secs', 10) * 1000,
      query_timeout: cfgInt(config, 'acquire_timeout_secs', 30) * 1000,
      idleTimeoutMillis: cfgInt(config, 'idle_timeout_secs', 600) * 1000,
    });
    this.pool.on('error', () => undefined); // an idle client lost with the server: the pool replaces it
  }

  deliver(batch: readonly QueuedMessage[]): Promise<SinkResult> {
    return runStatements(
      batch,
      sqlStatements('postgres', this.connector.config, batch),
      (s) => this.pool.query(s.text, s.values),
      this.label,
    );
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** `mysql` with mysql2: INSERT (batch / upsert / sql_template, see sql-statements.ts) into `table`. */
export class MysqlSink implements LiveSink {
  private readonly pool: MysqlPool;
  private readonly label: string;

  constructor(private readonly connector: Connector) {
    const { config } = connector;
    this.label = `mysql ${cfgStr(config, 'host')}:${cfgInt(config, 'port', 3306)}/${cfgStr(config, 'database')}`;
    this.pool = createMysqlPool({
      host: cfgStr(config, 'host'),
      port: cfgInt(config, 'port', 3306),
      database: cfgStr(config, 'database'),
      user: cfgStr(config, 'username'),
      password: cfgStr(config, 'password'),
      connectionLimit: cfgInt(config, 'pool_size', 10),
      maxIdle: cfgInt(config, 'min_pool_size', 2),
      idleTimeout: cfgInt(config, 'idle_timeout_secs', 600) * 1000,
      connectTimeout: cfgInt(config, 'connect_timeout_secs', 10) * 1000,
    });
    this.pool.on('connection', (conn) => conn.on('error', () => undefined));
  }

  deliver(batch: readonly QueuedMessage[]): Promise<SinkResult> {
    return runStatements(batch, sqlStatements('mysql', this.connector.config, batch), (s) => this.pool.query(s.text, s.values), this.label);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
