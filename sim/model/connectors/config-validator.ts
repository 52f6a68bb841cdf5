import {
  CONNECTOR_CATALOGUE,
  connectorTypeSpec,
  type ConfigCondition,
  type ConfigKeySpec,
  type ConnectorTypeSpec,
  type CrossFieldRule,
} from '../../../contract/core/connector-catalogue.ts';
import { invalidParam } from '../errors/operation-error.ts';
import { charLength } from '../api/validate-params.ts';

/**
 * Validates a connector's `config` JSON text against its type's rules in the catalogue
 * (contract/core/connector-catalogue.ts) and returns the normalised config: catalogue keys only,
 * in catalogue order, defaults applied. Every rule lives in the catalogue; this file only knows how
 * to read each kind of rule, so a suite generating cases from the same data tests the same thing.
 * Each violation is a 400 naming `config.<key>` and the rule.
 */

export type NormalisedConfig = Record<string, unknown>;

/** The catalogue entry of a `connector_type` value, matched case-insensitively; a 400 when unknown. */
export function resolveConnectorType(value: string): ConnectorTypeSpec {
  const spec = connectorTypeSpec(value);
  if (!spec) {
    throw invalidParam(
      'connector_type',
      `connector_type must be one of ${CONNECTOR_CATALOGUE.map((t) => t.id).join(', ')} (case-insensitive; got ${JSON.stringify(value)})`,
    );
  }
  return spec;
}

/** Parses and checks `config` text for a type; throws a 400 naming `config` or `config.<key>`. */
export function validateConnectorConfig(type: ConnectorTypeSpec, text: string): NormalisedConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw invalidParam('config', `config is not valid JSON: ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidParam('config', `config must be the JSON text of an object with the ${type.id} keys (got ${describe(parsed)})`);
  }
  return normaliseConfig(type, parsed as Record<string, unknown>);
}

/** Checks an already parsed config object; the same rules as `validateConnectorConfig`. */
function normaliseConfig(type: ConnectorTypeSpec, raw: Record<string, unknown>): NormalisedConfig {
  const out: NormalisedConfig = {};
  for (const key of type.keys) {
    const value = Object.prototype.hasOwnProperty.call(raw, key.name) ? raw[key.name] : undefined;
    if (value === undefined || value === null) {
      if (key.required && key.default === undefined) {
        throw invalidParam(`config.${key.name}`, `config.${key.name} is required for connector type ${type.id}`);
      }
      if (key.default !== undefined) out[key.name] = structuredClone(key.default);
      continue;
    }
    checkKey(key, value);
    out[key.name] = typeof value === 'object' ? structuredClone(value) : value;
  }
  for (const rule of type.rules) checkRule(rule, out);
  return out;
}

// ---------------------------------------------------------------------------------------------

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

const TYPE_WORDS: Record<ConfigKeySpec['type'], string> = {
  string: 'a string',
  integer: 'an integer',
  bool: 'true or false',
  array: 'an array',
  object: 'a JSON object',
  'string-map': 'an object whose values are strings',
};

function wrongType(key: ConfigKeySpec, value: unknown): never {
  throw invalidParam(`config.${key.name}`, `config.${key.name} must be ${TYPE_WORDS[key.type]} (got ${describe(value)})`);
}

function refuse(key: string, rule: string): never {
  throw invalidParam(`config.${key}`, `config.${key} ${rule}`);
}

function quoteList(values: readonly (string | number)[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

function checkKey(key: ConfigKeySpec, value: unknown): void {
  const name = key.name;
  switch (key.type) {
    case 'string': {
      if (typeof value !== 'string') wrongType(key, value);
      const len = charLength(value);
      if (key.minLength !== undefined && len < key.minLength)
        refuse(name, key.minLength === 1 ? 'must not be empty' : `must be at least ${key.minLength} characters (got ${len})`);
      if (key.maxLength !== undefined && len > key.maxLength) refuse(name, `must be at most ${key.maxLength} characters (got ${len})`);
      if (key.prefixes && !key.prefixes.some((p) => value.startsWith(p) && value.length > p.length)) {
        refuse(name, `must start with ${key.prefixes.join(' or ')} followed by an address (got ${JSON.stringify(value)})`);
      }
      if (key.pattern && !new RegExp(key.pattern.regex).test(value))
        refuse(name, `must be ${key.pattern.description} (got ${JSON.stringify(value)})`);
      if (key.format === 'json-object-text') checkJsonObjectText(name, value);
      break;
    }
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) wrongType(key, value);
      checkRange(key, value);
      break;
    case 'bool':
      if (typeof value !== 'boolean') wrongType(key, value);
      break;
    case 'array':
      if (!Array.isArray(value)) wrongType(key, value);
      if (key.minItems !== undefined && value.length < key.minItems)
        refuse(name, `must have at least ${key.minItems} element${key.minItems === 1 ? '' : 's'} (got ${value.length})`);
      if (key.items === 'string') {
        value.forEach((item, i) => {
          if (typeof item !== 'string' || item.length === 0) {
            throw invalidParam(`config.${name}`, `config.${name}[${i}] must be a non-empty string (got ${describe(item)})`);
          }
        });
      }
      break;
    case 'object':
      if (typeof value !== 'object' || Array.isArray(value)) wrongType(key, value);
      break;
    case 'string-map':
      if (typeof value !== 'object' || Array.isArray(value)) wrongType(key, value);
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (typeof v !== 'string') throw invalidParam(`config.${name}`, `config.${name}.${k} must be a string (got ${describe(v)})`);
      }
      break;
  }
  if (key.enum && !key.enum.includes(value as string | number))
    refuse(name, `must be one of ${quoteList(key.enum)} (got ${JSON.stringify(value)})`);
}

function checkRange(key: ConfigKeySpec, value: number): void {
  const { minimum: min, maximum: max } = key;
  const outside = (min !== undefined && value < min) || (max !== undefined && value > max);
  if (!outside) return;
  if (min !== undefined && max !== undefined) refuse(key.name, `must be between ${min} and ${max} (got ${value})`);
  if (min !== undefined) refuse(key.name, `must be at least ${min} (got ${value})`);
  refuse(key.name, `must be at most ${max} (got ${value})`);
}

function checkJsonObjectText(name: string, value: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (e) {
    refuse(name, `must be JSON text of an object: ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    refuse(name, `must be JSON text of an object (got ${describe(parsed)})`);
}

// ---------------------------------------------------------------------------------------------

/** A key counts as given when present, not null, and not an empty string or array. */
function isGiven(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string' || Array.isArray(value)) return value.length > 0;
  return true;
}

const holds = (when: ConfigCondition, config: NormalisedConfig): boolean => config[when.key] === when.equals;
const conditionText = (when: ConfigCondition): string => `config.${when.key} is ${JSON.stringify(when.equals)}`;

function checkRule(rule: CrossFieldRule, config: NormalisedConfig): void {
  switch (rule.kind) {
    case 'required-when':
      if (!holds(rule.when, config)) return;
      for (const key of rule.keys) {
        if (!isGiven(config[key])) {
          refuse(key, `${config[key] === '' ? 'must not be empty' : 'is required'} when ${conditionText(rule.when)} (${rule.description})`);
        }
      }
      return;
    case 'empty-when':
      if (!holds(rule.when, config)) return;
      for (const key of rule.keys) {
        if (config[key] !== undefined && config[key] !== '') {
          refuse(key, `must be an empty string when ${conditionText(rule.when)} (${rule.description}; got ${JSON.stringify(config[key])})`);
        }
      }
      return;
    case 'one-of-groups': {
      const methods = rule.groups.map((g) => g.join(' with ')).join('; ');
      const given = rule.groups.filter((g) => g.some((k) => isGiven(config[k])));
      if (given.length > 1) {
        refuse(given[1][0], `cannot be combined with config.${given[0][0]}: give only one of: ${methods} (${rule.description})`);
      }
      if (given.length === 1) {
        const group = given[0];
        const missing = group.find((k) => !isGiven(config[k]));
        if (missing) refuse(missing, `is required with config.${group.find((k) => isGiven(config[k]))} (${rule.description})`);
      }
      if (given.length === 0 && rule.required) refuse(rule.groups[0][0], `or another of: ${methods} is required (${rule.description})`);
      return;
    }
    case 'placeholder-count': {
      const text = config[rule.key];
      if (typeof text !== 'string') return;
      const count = text.split(rule.token).length - 1;
      if (count !== rule.count) {
        refuse(
          rule.key,
          `must contain exactly ${rule.count} ${JSON.stringify(rule.token)} placeholders (got ${count}; ${rule.description})`,
        );
      }
      return;
    }
    case 'placeholder-set': {
      const text = config[rule.key];
      if (typeof text !== 'string') return;
      const used = new Set([...text.matchAll(new RegExp(rule.regex, 'g'))].map((m) => Number(m[1])));
      const missing = rule.numbers.filter((n) => !used.has(n));
      const extra = [...used].filter((n) => !rule.numbers.includes(n)).sort((a, b) => a - b);
      if (missing.length > 0 || extra.length > 0) {
        const expected = rule.numbers.map((n) => `${rule.prefix}${n}`).join(', ');
        const problems = [
          ...(missing.length > 0 ? [`missing ${missing.map((n) => `${rule.prefix}${n}`).join(', ')}`] : []),
          ...(extra.length > 0 ? [`unexpected ${extra.map((n) => `${rule.prefix}${n}`).join(', ')}`] : []),
        ];
        refuse(rule.key, `must use exactly the placeholders ${expected} (${problems.join('; ')})`);
      }
      return;
    }
    case 'effective-only-when':
      return; // informational: the key is checked like any other, and used only when the condition holds
  }
}
