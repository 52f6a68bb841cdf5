/**
 * The real server's `mcp_route()` (reference notes §1.2, §4.12; the real `admin-server/src/mcp/mod.rs`):
 * `POST /mcp` (JSON-RPC, `sim/admin-api/mcp/mcp-server.ts`), the OAuth discovery routes an MCP client probes
 * (`/.well-known/oauth-protected-resource[/mcp]` saying no authentication is needed, the others 404),
 * and `POST /register` refusing dynamic client registration. All are routed outside the /api nest: open.
 */
import type { Cluster } from '../../../model/cluster/cluster.ts';
import { answerMcp, type McpRequest } from '../../../admin-api/mcp/mcp-server.ts';
import { headerOf, type ApiRequest, type ApiResponse } from '../../../admin-api/core/api-exchange.ts';
import type { ExtraRoute } from '../../../admin-api/hooks/deviation.ts';
import { fieldsOf, plainJsonBody, type RequestStruct } from './plain-json-body.ts';
import { emptyAnswer, jsonAnswer, methodNotAllowed } from './route-answers.ts';

const MCP_PATH = '/mcp';
const PROTECTED_RESOURCE_PATHS = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'] as const;
/** Discovery paths of an OAuth authorization server: there is none, each answers 404 with no body. */
const OAUTH_404_PATHS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/oauth-authorization-server/mcp',
  '/.well-known/openid-configuration',
  '/.well-known/openid-configuration/mcp',
  '/mcp/.well-known/openid-configuration',
] as const;
const REGISTER_PATH = '/register';

/** The real `McpRequest`, read with axum's plain `Json` (its rejections are plain text, not JSON-RPC). */
const MCP_REQUEST: RequestStruct = {
  name: 'McpRequest',
  fields: [
    { name: 'jsonrpc', type: 'string', required: true, description: 'JSON-RPC version (not checked)' },
    // `object` fields are not type-checked: Option<serde_json::Value>.
    { name: 'id', type: 'object', description: 'request id, any JSON value' },
    { name: 'method', type: 'string', required: true, description: 'method' },
    { name: 'params', type: 'object', description: 'parameters, any JSON value' },
  ],
};

function mcpAnswer(req: ApiRequest, cluster: Cluster): ApiResponse {
  const body = plainJsonBody(req, MCP_REQUEST);
  if (!body.ok) return body.answer;
  const f = fieldsOf(MCP_REQUEST, body.value);
  const request: McpRequest = {
    jsonrpc: f.jsonrpc as string,
    method: f.method as string,
    ...(f.id !== undefined ? { id: f.id } : {}),
    ...(f.params !== undefined ? { params: f.params } : {}),
  };
  return jsonAnswer(200, answerMcp(cluster, request));
}

/** Where the MCP server is, built from the request as the real one does (Host, X-Forwarded-Proto). */
function protectedResource(req: ApiRequest): ApiResponse {
  const host = headerOf(req, 'host') ?? 'localhost:58080';
  const proto = headerOf(req, 'x-forwarded-proto') ?? 'http';
  return jsonAnswer(200, {
    resource: `${proto}://${host}/mcp`,
    bearer_methods_supported: [],
    resource_documentation: 'https://github.com/robustmq/robustmq',
  });
}

const REGISTER_REFUSAL = {
  error: 'invalid_client_metadata',
  error_description: 'Dynamic client registration is not supported. No authentication required.',
};

const open = (method: ExtraRoute['method'], path: string, handle: ExtraRoute['handle']): ExtraRoute => ({
  method,
  path,
  auth: 'open',
  handle,
});

export const MCP_ROUTES: readonly ExtraRoute[] = [
  open('POST', MCP_PATH, (req, { cluster }) => mcpAnswer(req, cluster)),
  open('*', MCP_PATH, () => methodNotAllowed(['POST'])),
  ...PROTECTED_RESOURCE_PATHS.flatMap((p) => [
    open('GET', p, (req) => protectedResource(req)),
    open('*', p, () => methodNotAllowed(['GET'])),
  ]),
  ...OAUTH_404_PATHS.flatMap((p) => [open('GET', p, () => emptyAnswer(404)), open('*', p, () => methodNotAllowed(['GET']))]),
  open('POST', REGISTER_PATH, () => jsonAnswer(400, REGISTER_REFUSAL)),
  open('*', REGISTER_PATH, () => methodNotAllowed(['POST'])),
];
