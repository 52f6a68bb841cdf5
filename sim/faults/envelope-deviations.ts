/** Bugs in the response envelope, status codes and crashes. */
import type { Deviation } from '../admin-api/hooks/deviation.ts';
import { aroundOn, responseOn, rewriteJson } from '../admin-api/hooks/hook-helpers.ts';

export const ENVELOPE_DEVIATIONS: readonly Deviation[] = [
  {
    id: 'topic-detail-success-code-1',
    spec: 'breaks',
    endpoint: 'cluster.topic.detail',
    description: 'topic detail answers its successes with code 1 (message success, data present)',
    checks: ['happy-path'],
    caught: true,
    hooks: {
      response: responseOn('cluster.topic.detail', (res) => rewriteJson(res, (body) => (body.code === 0 ? { ...body, code: 1 } : body))),
    },
  },
  {
    id: 'topic-rewrite-list-success-message-ok',
    spec: 'breaks',
    endpoint: 'cluster.topic-rewrite.list',
    description: 'topic-rewrite list answers success with message "ok" instead of "success"',
    checks: ['success-envelope', 'envelope.failure-shape'],
    caught: true,
    hooks: {
      response: responseOn('cluster.topic-rewrite.list', (res) =>
        rewriteJson(res, (body) => (body.code === 0 && 'message' in body ? { ...body, message: 'ok' } : body)),
      ),
    },
  },
  {
    id: 'schema-create-failure-code-0',
    spec: 'breaks',
    endpoint: 'cluster.schema.create',
    description: 'schema create answers its refusals and failures with code 0 (the text and HTTP status stay)',
    checks: ['envelope.failure-shape'],
    caught: true,
    hooks: {
      // 401 answers come from the auth layer, which keeps its code 401.
      response: responseOn('cluster.schema.create', (res) =>
        res.status === 401 ? res : rewriteJson(res, (body) => (body.code !== 0 ? { ...body, code: 0 } : body)),
      ),
    },
  },
  {
    id: 'user-create-failure-without-message',
    spec: 'breaks',
    endpoint: 'cluster.user.create',
    description: 'user create failures carry no message (nor error) field',
    checks: ['envelope.failure-shape'],
    caught: true,
    hooks: {
      response: responseOn('cluster.user.create', (res) =>
        rewriteJson(res, ({ message, error, ...rest }) =>
          rest.code !== 0 ? rest : { ...rest, ...(message !== undefined ? { message } : {}), ...(error !== undefined ? { error } : {}) },
        ),
      ),
    },
  },
  {
    id: 'blacklist-create-failure-data-object',
    spec: 'breaks',
    endpoint: 'cluster.blacklist.create',
    description: 'blacklist create failures carry data {} instead of null',
    checks: ['envelope.failure-shape'],
    caught: true,
    hooks: {
      response: responseOn('cluster.blacklist.create', (res) =>
        rewriteJson(res, (body) => (body.code !== 0 ? { ...body, data: {} } : body)),
      ),
    },
  },
  {
    id: 'schema-list-internal-error',
    spec: 'breaks',
    endpoint: 'cluster.schema.list',
    description: 'schema list crashes: every request answers HTTP 500',
    checks: ['happy-path'],
    caught: true,
    hooks: {
      around: aroundOn('cluster.schema.list', async () => {
        throw new TypeError("Cannot read properties of undefined (reading 'schema_type')");
      }),
    },
  },
  {
    id: 'tenant-create-wrong-method-404',
    spec: 'breaks',
    endpoint: 'cluster.tenant.create',
    description: 'GET on the tenant create path answers 404 instead of 405 with Allow',
    checks: ['wrong-method'],
    caught: true,
    hooks: {
      response: responseOn('cluster.tenant.create', (res) => {
        if (res.status !== 405) return res;
        const { allow: _allow, ...headers } = res.headers;
        return rewriteJson({ ...res, status: 404, headers }, (body) => ({
          ...body,
          code: 404,
          ...('message' in body ? { message: 'not found' } : { error: 'not found' }),
        }));
      }),
    },
  },
];
