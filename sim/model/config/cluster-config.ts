import { CONFIG_TYPE_NAMES } from '../../../contract/core/config-types.ts';
import { canonicalJson } from '../engine/trace.ts';
import type { SimEngine } from '../engine/sim-engine.ts';
import type { SimNode } from '../nodes/node-registry.ts';
import { brokerConfigView, type BrokerConfigView, type ConfigViewSources } from './broker-config-view.ts';
import type { ConfigType, DynamicConfig } from './dynamic-config.ts';
import { defaultDynamicConfig, parseConfigText, patchSection, resolveConfigType, type SectionPatch } from './section-rules.ts';

/** One section changed: what it was and what it is now (both frozen). */
export interface ConfigChange<T extends ConfigType = ConfigType> {
  configType: T;
  previous: DynamicConfig[T];
  current: DynamicConfig[T];
}

export type ConfigChangeListener = (change: ConfigChange) => void;

/** The durable form of the dynamic configuration: plain JSON, for a later durable-state store. */
export interface ConfigSnapshot {
  version: 1;
  sections: DynamicConfig;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Replaces one section (generic, so the section's type follows its name). */
function setSection<T extends ConfigType>(sections: DynamicConfig, type: T, value: DynamicConfig[T]): void {
  sections[type] = value;
}

function freezeSections(config: DynamicConfig): DynamicConfig {
  for (const name of CONFIG_TYPE_NAMES) deepFreeze(config[name]);
  return config;
}

/**
 * The cluster-wide run-time configuration (the `config_type` sections), held in the model: every node
 * reads the same sections, so a set on any node shows on every node's config get and takes effect
 * at once for every part that reads `current()`.
 *
 * Sections are frozen and replaced whole on a change, so nothing can alter them without validation,
 * a trace record and the change listeners: use `set` (typed) or `setFromText` (the API form).
 */
export interface ClusterConfigDeps extends ConfigViewSources {
  engine: Pick<SimEngine, 'record'>;
}

export class ClusterConfig {
  /** The store: its sections are frozen and replaced whole; the container itself is private and mutable. */
  private readonly sections: DynamicConfig = freezeSections(defaultDynamicConfig());
  private readonly listeners: ConfigChangeListener[] = [];
  /** A read-only window on `sections`: always the latest values, and assignments to it throw. */
  private readonly live: DynamicConfig;

  constructor(private readonly deps: ClusterConfigDeps) {
    const live = {} as DynamicConfig;
    for (const name of CONFIG_TYPE_NAMES) {
      Object.defineProperty(live, name, { enumerable: true, get: () => this.sections[name] });
    }
    this.live = Object.freeze(live);
  }

  /**
   * The demo workload turns on the detectors whose lists would otherwise stay empty: slow
   * subscriptions, flapping detection (its flappy clients get banned and let in again) and the
   * system monitor (CPU spikes raise alarms). Everything else keeps the spec's defaults.
   */
  seedDemo(): void {
    this.set('MqttSlowSubscribeConfig', { enable: true });
    this.set('MqttFlappingDetect', { enable: true });
    this.set('MqttSystemMonitor', { enable: true });
  }

  /** The current sections, in set form. Read it at the moment of use: values change at run time. */
  current(): DynamicConfig {
    return this.live;
  }

  /**
   * `POST /api/cluster/config/set`: `configType` names a section (or an alias), `configText` is the
   * JSON text of some of its fields. All or nothing: on any violation nothing changes.
   */
  setFromText(configType: string, configText: string): ConfigType {
    const type = resolveConfigType(configType);
    this.set(type, parseConfigText(configText) as SectionPatch<typeof type>);
    return type;
  }

  /**
   * Changes some fields of one section; omitted fields keep their values, unknown fields are ignored,
   * read-view enum names are stored as their set-form value. Validated like the API (400 naming
   * `config.<field>`). Records the change and tells the listeners. Returns the new section.
   */
  set<T extends ConfigType>(type: T, patch: SectionPatch<T>): DynamicConfig[T] {
    const previous = this.sections[type];
    const next = deepFreeze(patchSection(type, previous, patch));
    this.sections[type] = next;
    this.deps.engine.record('config.set', { config_type: type, config: next });
    this.notify({ configType: type, previous, current: next });
    return next;
  }

  /** Called after every change of a section, in registration order. Returns a function that unsubscribes. */
  onChange(listener: ConfigChangeListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** A plain JSON copy of every section. */
  snapshot(): ConfigSnapshot {
    return { version: 1, sections: structuredClone({ ...this.sections }) };
  }

  /**
   * Replaces every section from a snapshot. Each section is validated as a patch over the defaults, so
   * a snapshot from before a field existed still loads; an invalid snapshot changes nothing. Listeners
   * hear about each section whose values differ.
   */
  restore(snapshot: ConfigSnapshot): void {
    if (snapshot?.version !== 1 || !snapshot.sections || typeof snapshot.sections !== 'object') {
      throw new Error('config snapshot must be {version: 1, sections: {...}}');
    }
    const defaults = defaultDynamicConfig();
    const restored = {} as Record<ConfigType, unknown>;
    for (const type of CONFIG_TYPE_NAMES) {
      // A snapshot from before a section existed lacks it, whatever its type says.
      const saved: unknown = snapshot.sections[type];
      restored[type] = saved === undefined ? defaults[type] : patchSection(type, defaults[type], saved);
    }
    const changes: ConfigChange[] = [];
    for (const type of CONFIG_TYPE_NAMES) {
      const previous = this.sections[type];
      const next = deepFreeze(restored[type]) as DynamicConfig[typeof type];
      setSection(this.sections, type, next);
      if (canonicalJson(previous) !== canonicalJson(next)) changes.push({ configType: type, previous, current: next });
    }
    this.deps.engine.record('config.restore', { changed: changes.map((c) => c.configType) });
    for (const change of changes) this.notify(change);
  }

  /** `data` of config get as `node` answers it. */
  view(node: SimNode): BrokerConfigView {
    return brokerConfigView(this.deps, node, this.sections);
  }

  private notify(change: ConfigChange): void {
    for (const listener of [...this.listeners]) listener(change);
  }
}
