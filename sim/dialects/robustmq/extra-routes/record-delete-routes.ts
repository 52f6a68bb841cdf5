/**
 * `POST /api/storage-engine/record/delete-by-keys` and `/delete-by-offsets` (reference notes §4.11;
 * the real `engine/record.rs`): plain `Json<T>` bodies, then the handler's own checks and the storage
 * engine's answer, each a form-B envelope with HTTP 200. Deleting changes the model (it is recorded),
 * so the app journals it and `mqsim serve --state` replays it.
 */
import { OperationError } from '../../../model/errors/operation-error.ts';
import type { SwitchCluster } from '../../../admin-api/hooks/deviation.ts';
import type { ApiRequest, ApiResponse } from '../../../admin-api/core/api-exchange.ts';
import type { ExtraRoute } from '../../../admin-api/hooks/deviation.ts';
import { fieldsOf, plainJsonBody, type RequestStruct } from './plain-json-body.ts';
import { formBFailure, formBSuccess, methodNotAllowed } from './route-answers.ts';

const DELETE_BY_KEYS_PATH = '/api/storage-engine/record/delete-by-keys';
const DELETE_BY_OFFSETS_PATH = '/api/storage-engine/record/delete-by-offsets';

const BY_KEYS: RequestStruct = {
  name: 'RecordDeleteByKeysReq',
  fields: [
    { name: 'shard_name', type: 'string', required: true, description: 'shard' },
    {
      name: 'keys',
      type: 'array',
      required: true,
      items: { name: 'key', type: 'string', description: 'record key' },
      description: 'keys whose records go',
    },
  ],
};

const BY_OFFSETS: RequestStruct = {
  name: 'RecordDeleteByOffsetsReq',
  fields: [
    { name: 'shard_name', type: 'string', required: true, description: 'shard' },
    {
      name: 'offsets',
      type: 'array',
      required: true,
      items: { name: 'offset', type: 'u64', description: 'record offset' },
      description: 'offsets whose records go',
    },
  ],
};

/** The storage engine's refusal (unknown shard, EngineSegment, leader down) as the handler wraps it. */
function deleting(run: () => void): ApiResponse {
  try {
    run();
  } catch (e) {
    if (e instanceof OperationError) return formBFailure(e.message);
    throw e;
  }
  return formBSuccess('success');
}

function byKeys(req: ApiRequest, cluster: SwitchCluster): ApiResponse {
  const body = plainJsonBody(req, BY_KEYS);
  if (!body.ok) return body.answer;
  const { shard_name: shard, keys } = fieldsOf(BY_KEYS, body.value) as { shard_name: string; keys: string[] };
  if (shard === '') return formBFailure('shard_name cannot be empty');
  if (keys.length === 0) return formBFailure('keys cannot be empty');
  return deleting(() => cluster.storage.deleteByKeys(shard, keys));
}

function byOffsets(req: ApiRequest, cluster: SwitchCluster): ApiResponse {
  const body = plainJsonBody(req, BY_OFFSETS);
  if (!body.ok) return body.answer;
  const { shard_name: shard, offsets } = fieldsOf(BY_OFFSETS, body.value) as { shard_name: string; offsets: number[] };
  if (shard === '') return formBFailure('shard_name cannot be empty');
  if (offsets.length === 0) return formBFailure('offsets cannot be empty');
  return deleting(() => cluster.storage.deleteByOffsets(shard, offsets));
}

export const RECORD_DELETE_ROUTES: readonly ExtraRoute[] = [
  { method: 'POST', path: DELETE_BY_KEYS_PATH, auth: 'token', handle: (req, { cluster }) => byKeys(req, cluster) },
  { method: 'POST', path: DELETE_BY_OFFSETS_PATH, auth: 'token', handle: (req, { cluster }) => byOffsets(req, cluster) },
  { method: '*', path: DELETE_BY_KEYS_PATH, auth: 'token', handle: () => methodNotAllowed(['POST']) },
  { method: '*', path: DELETE_BY_OFFSETS_PATH, auth: 'token', handle: () => methodNotAllowed(['POST']) },
];
