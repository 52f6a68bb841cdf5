import { CONFIG_TYPES, type ConfigFieldSpec } from '../../../contract/core/config-types.ts';
import type { ConfigType, DynamicConfig } from './dynamic-config.ts';

/**
 * A 0..1 fraction as a percentage. Rounded to 6 decimals because binary floating point turns 0.7 * 100
 * into 70.00000000000001, and the read view should show the 70 that was meant.
 */
function asPercent(fraction: number): number {
  return Math.round(fraction * 1e8) / 1e6;
}

function fieldReadView(field: ConfigFieldSpec, value: unknown): unknown {
  if (field.properties) return fieldsReadView(field.properties, value as Record<string, unknown>);
  if (field.readForm === 'percent') return asPercent(value as number);
  if (field.readForm === 'enum') return field.readNames?.[value as string] ?? value;
  return value;
}

function fieldsReadView(fields: readonly ConfigFieldSpec[], section: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f.name, fieldReadView(f, section[f.name])]));
}

/** One section as config get shows it: read-view enum names, watermarks in percent. */
function sectionReadView(type: ConfigType, section: DynamicConfig[ConfigType]): Record<string, unknown> {
  const spec = CONFIG_TYPES.find((t) => t.configType === type)!;
  // The section's fields by name (its interface has no index signature to read them by a spec's name).
  return fieldsReadView(spec.fields, Object.fromEntries(Object.entries(section)));
}

/** Every dynamic section keyed by its read-view name (`mqtt_slow_subscribe`, `cluster_limit`...). */
export function dynamicReadView(config: DynamicConfig): Record<string, Record<string, unknown>> {
  return Object.fromEntries(CONFIG_TYPES.map((t) => [t.readViewKey, sectionReadView(t.configType, config[t.configType])]));
}
