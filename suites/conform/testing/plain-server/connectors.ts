import { refuse } from './answers.ts';
import { CATALOGUE, checkTypeConfig } from './connector-catalogue.ts';
import { need, oneOf, text, u32, u64, type Body, type Rules } from './rules.ts';
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

/**
 * The failure strategy (Connectors: Failure strategy), its numbers typed as the reference server
 * types them (retry_total_times u32, wait_time_ms u64: the spec says "number"); retries "must be above
 * 0 for the two retrying strategies", so discard_after_retry needs them.
 */
const FAILURE_STRATEGY: Rules = {
  strategy: need(oneOf(...STRATEGIES)),
  retry_total_times: u32(1),
  wait_time_ms: u64(1),
  topic_name: text(1, 256),
};

function checkFailureStrategy(fs: Body): void {
  if (fs.strategy === 'discard_after_retry' && fs.retry_total_times === undefined)
    refuse('failure_strategy.retry_total_times must be above 0 for discard_after_retry');
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
    failure_strategy: { type: 'object', required: true, fields: FAILURE_STRATEGY },
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
