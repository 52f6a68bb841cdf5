import { COMMON_LIST_PARAMS } from '../../../contract/core/common.ts';
import { endpointById } from '../../../contract/index.ts';
import { IndexedList } from '../../model/api/indexed-list.ts';
import { referenceListPage } from '../../model/api/list-reference.ts';
import { OperationError } from '../../model/errors/operation-error.ts';
import { VersionedRows } from '../../model/api/versioned-rows.ts';
import { validateFields } from '../../model/api/validate-params.ts';
import type { Cluster } from '../../model/cluster/cluster.ts';
import { failureEnvelope, FAILURE_CODE, successEnvelope, type EnvelopeForm } from '../envelope.ts';
import type { PeerTransport } from '../core/handler-types.ts';
import { HANDLERS } from '../handlers/index.ts';
import { rawParamsOf, recordFieldsOf, type ListQuery } from './list-queries.ts';

/** An answer as the app sends it: status and body text. */
export interface ListAnswer {
  readonly status: number;
  readonly body: string;
}

const noPeers: PeerTransport = { call: () => Promise.reject(new Error('a list reads no other node')) };

/**
 * The answer the app must give to `query` now, computed the reference way: the parameters validated
 * as the app validates them (the endpoint's, then the common list parameters), the list's records
 * from its handler in base order (an IndexedList's from its owner's plain store, not its indexes),
 * the page by the reference (sim/model/api/list-reference.ts), and the envelope written by JSON.stringify
 * (the app's compiled writers write the same bytes). A refusal is the failure envelope the app maps
 * it to. Nothing is kept between calls.
 */
export async function referenceAnswer(cluster: Cluster, query: ListQuery, form: EnvelopeForm = 'A'): Promise<ListAnswer> {
  const endpoint = endpointById(query.id);
  try {
    const { raw, origin } = rawParamsOf(query);
    const own = validateFields(endpoint.params, raw, origin);
    const params = { ...validateFields(COMMON_LIST_PARAMS, raw, origin), ...own };
    const node = cluster.nodes.get(query.nodeId)!;
    const handler = HANDLERS[endpoint.id as keyof typeof HANDLERS];
    const data: unknown = await handler({ cluster, node, params, endpoint, peers: noPeers });
    const records: object[] =
      data instanceof IndexedList ? data.toArray() : data instanceof VersionedRows ? data.rows() : (data as object[]);
    const page = referenceListPage(records, params, endpoint.params, endpoint.list!, recordFieldsOf(endpoint));
    return { status: 200, body: JSON.stringify(successEnvelope(form, page)) };
  } catch (e) {
    if (!(e instanceof OperationError)) throw e;
    if (e.kind === 'invalid') return { status: 400, body: JSON.stringify(failureEnvelope(form, 400, e.message)) };
    return { status: 200, body: JSON.stringify(failureEnvelope(form, FAILURE_CODE[form], e.message)) };
  }
}
