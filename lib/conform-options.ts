/**
 * The options of `conform()` as a JavaScript caller may really pass them: checked one by one, so a
 * wrong type is a TypeError naming the option and what it takes, not a crash deep inside the run
 * (`(values ?? []).flatMap is not a function`) or a value silently read as another (`failOn: 'MUST'`
 * read as "any finding", `properties: 'false'` as true).
 */

/** What one option takes: a test of the value and the words that say it. */
interface OptionRule {
  expected: string;
  accepts(value: unknown): boolean;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const string: OptionRule = { expected: 'a string', accepts: isString };
const boolean: OptionRule = { expected: 'a boolean', accepts: (v) => typeof v === 'boolean' };
const func: OptionRule = { expected: 'a function', accepts: (v) => typeof v === 'function' };
const integer = (min: number, max = Number.MAX_SAFE_INTEGER): OptionRule => ({
  expected: `an integer from ${min} to ${max}`,
  accepts: (v) => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max,
});
const patterns: OptionRule = {
  expected: "a string or an array of strings (patterns such as '/api/cluster/tenant/*', 'tenants' or 'cluster.*'; comma-separated allowed)",
  accepts: (v) => isString(v) || (Array.isArray(v) && v.every(isString)),
};
const oneOf = (...values: readonly string[]): OptionRule => ({
  expected: `one of ${values.map((v) => `'${v}'`).join(', ')}`,
  accepts: (v) => isString(v) && values.includes(v),
});

/**
 * Every option but `target` (checked by `conform` itself: a string, or a cluster made by createCluster).
 * lib/conform.ts checks at compile time that every option of ConformOptions has its rule here.
 */
export const CONFORM_OPTION_RULES = {
  seed: integer(0),
  username: string,
  password: string,
  jwtSecret: string,
  peerAddress: string,
  mqtt: string,
  only: patterns,
  skip: patterns,
  properties: boolean,
  propertyRuns: integer(1, 100_000),
  depth: integer(1, 1_000_000),

  failOn: oneOf('must', 'should', 'info'),
  timeoutMs: integer(1, 600_000),
  nodes: integer(1, 9),
  reportDir: string,
  onProgress: func,
} satisfies Record<string, OptionRule>;
const RULES: Readonly<Record<string, OptionRule>> = CONFORM_OPTION_RULES;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array (${JSON.stringify(value).slice(0, 80)})`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/**
 * Throws a TypeError for the first option that is not of its type (or not an option at all);
 * `undefined` means "not given" for every option. Returns `only`/`skip` as arrays (a string is one
 * value, as one `--only` flag is).
 */
export function checkConformOptions<T extends { only?: string | readonly string[]; skip?: string | readonly string[] }>(
  options: T,
): Omit<T, 'only' | 'skip'> & { only?: readonly string[]; skip?: readonly string[] } {
  if (options === null || typeof options !== 'object')
    throw new TypeError(`conform: options must be an object such as { target: 'sim' }, got ${describe(options)}`);
  for (const [name, value] of Object.entries(options)) {
    if (name === 'target' || value === undefined) continue;
    const rule = RULES[name];
    if (!rule) throw new TypeError(`conform: unknown option "${name}" (the options are target, ${Object.keys(RULES).join(', ')})`);
    if (!rule.accepts(value)) throw new TypeError(`conform: option "${name}" must be ${rule.expected}, got ${describe(value)}`);
  }
  const asList = (v: string | readonly string[] | undefined) => (v === undefined ? undefined : isString(v) ? [v] : v);
  const { only, skip, ...rest } = options;
  const onlyList = asList(only);
  const skipList = asList(skip);
  return { ...rest, ...(onlyList ? { only: onlyList } : {}), ...(skipList ? { skip: skipList } : {}) };
}
