import { endpoints } from '../../../contract/endpoints/login.ts';
import { MQSIM_VERSION } from '../../version.ts';
import { RawBody, handlersFor } from '../core/handler-types.ts';

export const handlers = handlersFor(endpoints, {
  'auth.login': async ({ cluster, params }) => {
    const issued = await cluster.auth.login(params.username, params.password);
    if (!issued) {
      return new RawBody(
        'application/json; charset=utf-8',
        JSON.stringify({ code: 401, message: 'Invalid username or password', data: null }),
        401,
      );
    }
    return issued;
  },
  root: () => new RawBody('text/plain; charset=utf-8', `mqsim ${MQSIM_VERSION}`),
});
