import {
  ACCEPTED_CONFIG_TYPES,
  CONFIG_TYPE_NAMES,
  CONFIG_TYPES,
  configTypeSpec,
  type ConfigFieldSpec,
  type ConfigTypeName,
  type ConfigTypeSpec,
} from '../../../contract/core/config-types.ts';
import type { ParamSpec } from '../../../contract/core/types.ts';
import { invalidParam } from '../errors/operation-error.ts';
import { validateFields } from '../api/validate-params.ts';
import type { ConfigType, DynamicConfig } from './dynamic-config.ts';

// The contract's section names and the model's DynamicConfig keys must be the same set.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const SECTION_NAMES_AGREE: Same<ConfigType, ConfigTypeName> = true;
void SECTION_NAMES_AGREE;

/** A section change in the set form: any subset of fields; MqttLimit's quota objects may be partial too. */
export type SectionPatch<T extends ConfigType> = {
  [K in keyof DynamicConfig[T]]?: DynamicConfig[T][K] extends object ? Partial<DynamicConfig[T][K]> : DynamicConfig[T][K];
};

/** The canonical section name of `name` (an alias maps to its section), or a 400 naming `config_type`. */
export function resolveConfigType(name: string): ConfigType {
  const spec = configTypeSpec(name);
  if (!spec) {
    throw invalidParam(
      'config_type',
      `invalid parameter 'config_type': unknown config_type ${JSON.stringify(name)}; allowed values: ${ACCEPTED_CONFIG_TYPES.join(', ')}`,
    );
  }
  return spec.configType;
}

function specOf(type: ConfigType): ConfigTypeSpec {
  return CONFIG_TYPES.find((t) => t.configType === type)!;
}

function defaultsOf(fields: readonly ConfigFieldSpec[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f.name, f.properties ? defaultsOf(f.properties) : structuredClone(f.default)]));
}

/** A fresh copy of every section at its default values. */
export function defaultDynamicConfig(): DynamicConfig {
  const config: Partial<Record<ConfigType, unknown>> = {};
  for (const name of CONFIG_TYPE_NAMES) config[name] = defaultsOf(specOf(name).fields);
  // Built from the contract's field specs, which DynamicConfig's interfaces are written from.
  return config as DynamicConfig;
}

/**
 * The field rules without defaults: a set is a patch, so an omitted field must stay absent (and keep
 * its current value) instead of being filled with its default by the validator.
 */
function patchRules(fields: readonly ConfigFieldSpec[]): ParamSpec[] {
  return fields.map(({ default: _default, properties, ...rule }) => ({
    ...rule,
    ...(properties ? { properties: patchRules(properties) } : {}),
  }));
}

const PATCH_RULES: ReadonlyMap<ConfigType, ParamSpec[]> = new Map(CONFIG_TYPES.map((t) => [t.configType, patchRules(t.fields)]));

/**
 * `current` with the patched fields replaced (the patch was validated against the same fields): read-view
 * enum names become the set-form value they are stored as; patches of quota objects merge field by field.
 */
function applyPatch<S extends object>(fields: readonly ConfigFieldSpec[], current: S, patch: Record<string, unknown>): S {
  const next = { ...current };
  for (const field of fields) {
    if (!(field.name in patch)) continue;
    const value = patch[field.name];
    if (field.properties) {
      Reflect.set(
        next,
        field.name,
        applyPatch(field.properties, Object(Reflect.get(current, field.name)), value as Record<string, unknown>),
      );
    } else if (field.fromReadNames && typeof value === 'string' && !field.setValues?.includes(value)) {
      Reflect.set(next, field.name, field.fromReadNames[value]);
    } else {
      Reflect.set(next, field.name, value);
    }
  }
  return next;
}

/**
 * Checks a patch of one section against the contract's rules and returns the whole new section.
 * Nothing is changed here; a violation throws a 400 naming `config.<field>` with the rule broken.
 */
export function patchSection<T extends ConfigType>(type: T, current: DynamicConfig[T], patch: unknown): DynamicConfig[T] {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
    throw invalidParam('config', `invalid parameter 'config': the ${type} section must be a JSON object of its fields`);
  }
  const checked = validateFields(PATCH_RULES.get(type)!, patch as Record<string, unknown>, 'body', 'config.');
  return applyPatch(specOf(type).fields, current, checked);
}

/** Parses the `config` text of a set: JSON text of one section's fields. */
export function parseConfigText(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw invalidParam(
      'config',
      `invalid parameter 'config': not valid JSON text (${(e as Error).message}); send the section's fields as a JSON object in a string`,
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidParam('config', `invalid parameter 'config': must be the JSON text of an object, e.g. "{\\"enable\\":true}"`);
  }
  return parsed;
}
