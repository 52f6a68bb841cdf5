/**
 * Routes the real server has beyond the spec (reference notes §1.2, §11.4), each a switch that serves
 * them on the simulator's model (the `routes` hook; handlers in `extra-routes/`). The spec lists the
 * endpoints it describes and forbids none, so each is allowed: a conformance run with the switch on
 * raises no MUST or SHOULD finding (`real-server-allowed.test.ts`).
 */
import type { Deviation } from '../../admin-api/hooks/deviation.ts';
import { MCP_ROUTES } from './extra-routes/mcp-routes.ts';
import { RECORD_DELETE_ROUTES } from './extra-routes/record-delete-routes.ts';
import { SHARE_GROUP_ROUTES } from './extra-routes/share-group-routes.ts';

const ALLOWED = 'allowed by the spec: it lists the endpoints it describes and does not forbid others; these paths change none of them';

export const REAL_SERVER_EXTRA_ROUTES: readonly Deviation[] = [
  {
    id: 'mcp-server',
    spec: 'allows',
    notes: 'notes §4.12, §1.2, §11.4, §9',
    rule: 'The spec lists the endpoints it describes; POST /mcp and the OAuth discovery paths are not among them, and nothing forbids other paths',
    endpoint: 'mq9.mail.list',
    alsoEndpoints: ['mq9.agent.list'],
    description:
      "POST /mcp: the real JSON-RPC 2.0 MCP server (ping, initialize, tools/list, tools/call) with the nine mq9 tools on the simulator's mailboxes, messages and agents; GET /.well-known/oauth-protected-resource[/mcp], the OAuth discovery 404s and POST /register (400 invalid_client_metadata), all open",
    checks: [],
    caught: false,
    reason: ALLOWED,
    hooks: { routes: MCP_ROUTES },
  },
  {
    id: 'share-group-routes',
    spec: 'allows',
    notes: 'notes §4.8, §1.2, §11.4',
    rule: 'The spec lists the endpoints it describes; GET /api/cluster/share-group/list and /detail are not among them, and nothing forbids other paths',
    endpoint: 'mqtt.subscribe.list',
    alsoEndpoints: ['mqtt.subscribe.detail'],
    description:
      'GET /api/cluster/share-group/list (ShareGroup rows of the MQTT shared subscriptions, paged as build_query_params) and /detail (group, members, push_subscribers, push_thread_info; unknown: "Share group \'t/g\' not found"), behind the token',
    checks: [],
    caught: false,
    reason: ALLOWED,
    hooks: { routes: SHARE_GROUP_ROUTES },
  },
  {
    id: 'record-delete-routes',
    spec: 'allows',
    notes: 'notes §4.11, §1.2, §11.4, §10',
    rule: 'The spec lists the endpoints it describes; POST /api/storage-engine/record/delete-by-keys and /delete-by-offsets are not among them, and nothing forbids other paths',
    endpoint: 'mqtt.message.read',
    alsoEndpoints: ['storage.shard.list'],
    description:
      'POST /api/storage-engine/record/delete-by-keys and /delete-by-offsets delete records of a memory or RocksDB shard (reads skip them); plain Json rejections, "shard_name cannot be empty", "keys cannot be empty", "offsets cannot be empty", EngineSegment "… operation is not supported"',
    checks: [],
    caught: false,
    reason: ALLOWED,
    hooks: { routes: RECORD_DELETE_ROUTES },
  },
];
