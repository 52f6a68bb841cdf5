/**
 * The real server's MCP server (reference notes §4.12; the real `admin-server/src/mcp/mod.rs` and
 * `protocol.rs`): one JSON-RPC 2.0 request in, one response out, on the simulator's mq9.
 *
 * As the real one: `ping`, `initialize` (protocol 2024-11-05, server `robustmq-mq9-mcp`, capability
 * `tools`), `tools/list` and `tools/call` are the methods; any other method, notifications included,
 * is -32601 `Method not found` (the real server answers a notification too, with `id` null); an
 * unknown tool is -32602 `Unknown tool: <name>`; everything else that fails (no tool name, mq9 off,
 * arguments that do not deserialize, the broker's refusal) is -32603 with the error's text. A tool's
 * result is its JSON object itself and tools are listed with `input_schema` (the real structs' field
 * names): that is what the real server sends, and what its own clients read.
 *
 * Both forms, as the dialect serves them where clients differ: an agent's MCP client reads MCP's
 * forms, so each tool also carries `inputSchema` and each result also carries MCP `content` (one text
 * item holding the same object as JSON). Without them the MCP SDK's `listTools()` refuses the list
 * and its `callTool()` hands the agent an empty `content`.
 */
import { SerdeError } from '../../model/api/serde-struct.ts';
import type { Cluster } from '../../model/cluster/cluster.ts';
import { MQSIM_VERSION } from '../../version.ts';
import { toolDescriptions, ToolError, toolNamed } from './mcp-tools.ts';

/** The real `McpRequest` (jsonrpc, id, method, params), as deserialized. */
export interface McpRequest {
  readonly jsonrpc: string;
  readonly id?: unknown;
  readonly method: string;
  readonly params?: unknown;
}

export type McpResponse =
  { jsonrpc: '2.0'; id: unknown; result: unknown } | { jsonrpc: '2.0'; id: unknown; error: { code: number; message: string } };

const MCP_PROTOCOL_VERSION = '2024-11-05';
const MCP_SERVER_NAME = 'robustmq-mq9-mcp';
const MQ9_NOT_RUNNING = 'mq9 tools require nats-broker to be running';

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

const ok = (id: unknown, result: unknown): McpResponse => ({ jsonrpc: '2.0', id, result });
const err = (id: unknown, code: number, message: string): McpResponse => ({ jsonrpc: '2.0', id, error: { code, message } });

/** A tool's result in both forms: the real object, and the same as MCP `content` text for agents. */
function withContent(result: Record<string, unknown>): Record<string, unknown> {
  return { ...result, content: [{ type: 'text', text: JSON.stringify(result) }] };
}

/** A failure of the request's handling, answered as -32603 with its text (the real `Box<dyn Error>`). */
class InternalError extends Error {}

function dispatch(cluster: Cluster, req: McpRequest, id: unknown): McpResponse {
  switch (req.method) {
    case 'ping':
      return ok(id, {});
    case 'initialize':
      // The real server answers with its crate version; the simulator's version stands in for it.
      return ok(id, {
        protocolVersion: MCP_PROTOCOL_VERSION,
        capabilities: { tools: {} },
        serverInfo: { name: MCP_SERVER_NAME, version: MQSIM_VERSION },
      });
    case 'tools/list':
      return ok(id, { tools: toolDescriptions() });
    case 'tools/call': {
      const params = req.params;
      const object =
        params !== null && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : undefined;
      const name = object?.name;
      if (typeof name !== 'string') throw new InternalError("missing 'name' in tools/call params");
      const args = object && 'arguments' in object ? object.arguments : {};
      if (!cluster.mq9.isRunning) throw new InternalError(MQ9_NOT_RUNNING);
      const tool = toolNamed(name);
      if (!tool) return err(id, INVALID_PARAMS, `Unknown tool: ${name}`);
      return ok(id, withContent(tool.run(cluster, args)));
    }
    default:
      return err(id, METHOD_NOT_FOUND, 'Method not found');
  }
}

/** The response to one request. Never throws for a request's content: failures are JSON-RPC errors. */
export function answerMcp(cluster: Cluster, req: McpRequest): McpResponse {
  const id = req.id ?? null;
  try {
    return dispatch(cluster, req, id);
  } catch (e) {
    if (e instanceof InternalError || e instanceof ToolError || e instanceof SerdeError) return err(id, INTERNAL_ERROR, e.message);
    throw e;
  }
}
