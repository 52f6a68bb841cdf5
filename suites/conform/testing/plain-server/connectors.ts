import { refuse } from './answers.ts';
import { CATALOGUE, checkTypeConfig } from './connector-catalogue.ts';
import { need, text, type Body } from './rules.ts';
import { contains, exact, GENERAL, localTime, type FamilyDef } from './family.ts';

/**
 * Connectors (Resources: Connector; Endpoints: Connectors), with the rules of the spec beyond types
 * and lengths: the type is a catalogue identifier (any letter case), `config` is JSON text of an
 * object following its type's rules (connector-catalogue.ts), and the failure strategy's rules.
 */

const STRATEGIES = ['discard', 'discard_after_retry', 'dead_message_queue'];

/** The catalogue identifier of `type`, matched ignoring case; refuses an unknown one. */
function connectorType(type: string): string {
  const id = type.toLowerCase();
  if (!(id in CATALOGUE)) refuse(`connector_type must be one of ${Object.keys(CATALOGUE).join(', ')}`);
  return id;
}

function checkConfig(type: string, config: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(config);
  } catch {
    refuse('config must be JSON text of an object');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) refuse('config must be JSON text of an object');
  checkTypeConfig(type, parsed as Body);
}

const positive = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;

function checkFailureStrategy(fs: Body): void {
  const { strategy, retry_total_times: retries, wait_time_ms: wait, topic_name: topic } = fs;
  if (typeof strategy !== 'string' || !STRATEGIES.includes(strategy))
    refuse(`failure_strategy.strategy must be one of ${STRATEGIES.join(', ')}`);
  const given = (v: unknown) => v !== undefined && v !== null;
  if (strategy === 'discard_after_retry' && !positive(retries)) refuse('failure_strategy.retry_total_times must be above 0');
  if (given(retries) && !positive(retries)) refuse('failure_strategy.retry_total_times must be above 0');
  if (given(wait) && !positive(wait)) refuse('failure_strategy.wait_time_ms must be above 0');
  if (given(topic) && (typeof topic !== 'string' || topic.length === 0 || [...topic].length > 256))
    refuse('failure_strategy.topic_name must be 1-256 characters');
}

export const connectors: FamilyDef = {
  key: 'connector',
  paths: { create: '/api/cluster/connector/create', delete: '/api/cluster/connector/delete', list: '/api/cluster/connector/list' },
  create: {
    tenant: need(text(1, 256)),
    connector_name: need(text(1, 128)),
    connector_type: need(text(1, 50)),
    config: need(text(1, 4096)),
    topic_name: need(text(1, 256)),
    failure_strategy: { type: 'object', required: true },
  },
  remove: { tenant: need(text(1, 256)), connector_name: need(text(1, 128)) },
  identity: ['tenant', 'connector_name'],
  onDuplicate: 'refuse',
  record: (b, c) => {
    const type = connectorType(String(b.connector_type));
    checkConfig(type, String(b.config));
    checkFailureStrategy(b.failure_strategy as Body);
    const now = localTime(c.now());
    // Nothing runs connectors here: each stays Idle, with no node (States: Connector status).
    const { tenant, connector_name, config, topic_name } = b;
    return {
      tenant,
      connector_name,
      connector_type: type,
      config,
      topic_name,
      status: 'Idle',
      broker_id: null,
      create_time: now,
      update_time: now,
    };
  },
  list: {
    defaultLimit: GENERAL,
    fields: ['tenant', 'connector_name', 'connector_type', 'config', 'topic_name', 'status', 'create_time', 'update_time'],
    sortFields: ['connector_name', 'tenant'],
    filters: { tenant: exact('tenant'), connector_name: contains('connector_name') },
  },
};
