import { API } from '../../contract/index.ts';
import type { EndpointContract } from '../../contract/core/types.ts';
import type { HandlerTable } from './core/handler-types.ts';
import { HANDLERS } from './handlers/index.ts';

/**
 * What an admin app serves: the contract's endpoints (routing and validation) and a handler for
 * each, by endpoint id. The built-in API by default; a test may serve a contract of its own (an
 * ApiContract with its handlers: `{ ...api, handlers }`).
 */
export interface ServedApi {
  readonly endpoints: readonly EndpointContract[];
  readonly handlers: HandlerTable;
}

export const BUILT_IN_API: ServedApi = { endpoints: API.endpoints, handlers: HANDLERS };

/** Throws when an endpoint of `api` has no handler (a server that cannot answer a route it routes). */
export function checkHandlers(api: ServedApi): void {
  for (const endpoint of api.endpoints) {
    if (!api.handlers[endpoint.id])
      throw new Error(`contract endpoint ${endpoint.id} (${endpoint.method} ${endpoint.path}) has no handler`);
  }
}
