import pkg from '../package.json' with { type: 'json' };

/** Version of this simulator, as reported by `GET /`, the status object and the CLI. */
export const MQSIM_VERSION: string = pkg.version;
