import { PACKAGE_VERSION } from '../fixtures/package-version.ts';

/** Version of this simulator, as reported by `GET /`, the status object and the CLI. */
export const MQSIM_VERSION: string = PACKAGE_VERSION;
