import { OperationError } from '../api/operation-error.ts';
import type { Cluster } from '../cluster/cluster.ts';

export const MQ9_PREFIX = '$mq9.AI';

/** The mq9 protocol subjects the simulator answers (prefix `$mq9.AI`, reference notes §9). */
export const MQ9_SUBJECTS = {
  mailboxCreate: '$mq9.AI.MAILBOX.CREATE',
  agentRegister: '$mq9.AI.AGENT.REGISTER',
  agentUnregister: '$mq9.AI.AGENT.UNREGISTER',
  agentDiscover: '$mq9.AI.AGENT.DISCOVER',
} as const;

/** Protocol commands always act on tenant `default`, as on the real server. */
const TENANT = 'default';
const DISCOVER_DEFAULT_LIMIT = 20;

class PayloadError extends Error {}

function parseObject(command: string, payload: string, emptyMeansNone: boolean): Record<string, unknown> {
  if (payload.trim() === '') {
    if (emptyMeansNone) return {};
    throw new PayloadError('payload must not be empty');
  }
  let v: unknown;
  try {
    v = JSON.parse(payload);
  } catch (e) {
    throw new PayloadError(`invalid ${command} payload: ${(e as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new PayloadError(`invalid ${command} payload: expected a JSON object`);
  return v as Record<string, unknown>;
}

function optString(command: string, o: Record<string, unknown>, name: string): string | undefined {
  const v = o[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new PayloadError(`invalid ${command} payload: ${name} must be a string`);
  return v;
}

function optCount(command: string, o: Record<string, unknown>, name: string): number | undefined {
  const v = o[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new PayloadError(`invalid ${command} payload: ${name} must be a non-negative integer`);
  return v;
}

/**
 * Answers one mq9 request (subject + payload text) with the JSON reply the real server sends:
 * `{"error":""...}` on success, `{"error":"<text>"}` on failure. Synchronous, on the model; the NATS
 * bridge (live I/O) and tests call it. Returns undefined for a subject it does not serve.
 *
 * Decisions: AGENT.REGISTER takes the `{name, payload}` form when the object has a string `payload`,
 * otherwise it is an agent card (object with a string `name`), stored re-serialized. DISCOVER with
 * `text`/`semantic` (vector search on the real server) filters by a case-insensitive substring of
 * name or agent_info.
 */
export function answerMq9Request(cluster: Cluster, subject: string, payload: string): unknown {
  const mq9 = cluster.mq9;
  try {
    switch (subject) {
      case MQ9_SUBJECTS.mailboxCreate: {
        const cmd = 'MAILBOX.CREATE';
        const o = parseObject(cmd, payload, true);
        const name = optString(cmd, o, 'name');
        const ttl = optCount(cmd, o, 'ttl');
        const desc = optString(cmd, o, 'desc');
        const box = mq9.createMailbox({ tenant: TENANT, ...(name !== undefined ? { name } : {}), ...(ttl !== undefined ? { ttl } : {}), ...(desc !== undefined ? { desc } : {}) });
        return { error: '', mail_address: box.mail_address };
      }
      case MQ9_SUBJECTS.agentRegister: {
        const cmd = 'AGENT.REGISTER';
        const o = parseObject(cmd, payload, false);
        let name: string | undefined;
        let info: string;
        if (typeof o.payload === 'string') {
          name = optString(cmd, o, 'name');
          info = o.payload;
        } else {
          name = optString(cmd, o, 'name');
          info = JSON.stringify(o);
        }
        if (name === undefined) throw new PayloadError(`invalid ${cmd} payload: missing field \`name\``);
        mq9.registerAgent({ tenant: TENANT, name, agent_info: info });
        return { error: '' };
      }
      case MQ9_SUBJECTS.agentUnregister: {
        const cmd = 'AGENT.UNREGISTER';
        const o = parseObject(cmd, payload, false);
        const name = optString(cmd, o, 'name');
        if (name === undefined) throw new PayloadError(`invalid ${cmd} payload: missing field \`name\``);
        mq9.unregisterAgent(TENANT, name);
        return { error: '' };
      }
      case MQ9_SUBJECTS.agentDiscover: {
        const cmd = 'AGENT.DISCOVER';
        const o = parseObject(cmd, payload, true);
        const text = (optString(cmd, o, 'text') ?? optString(cmd, o, 'semantic') ?? '').toLowerCase();
        const limit = optCount(cmd, o, 'limit') || DISCOVER_DEFAULT_LIMIT;
        const page = optCount(cmd, o, 'page') || 1;
        const agents = mq9.listAgents().filter((a) => a.tenant === TENANT && (text === '' || a.name.toLowerCase().includes(text) || a.agent_info.toLowerCase().includes(text)));
        return agents.slice((page - 1) * limit, page * limit).map((a) => ({ name: a.name, agent_info: a.agent_info }));
      }
      default:
        return undefined;
    }
  } catch (e) {
    if (e instanceof PayloadError || e instanceof OperationError) return { error: e.message };
    throw e;
  }
}
