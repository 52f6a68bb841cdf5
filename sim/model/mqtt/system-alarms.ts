import type { IndexedList } from '../api/indexed-list.ts';
import { RecordIndex, type IndexEntry } from '../api/record-index.ts';
import { unixSeconds } from '../api/time-format.ts';
import type { MqttBrokerDeps } from './peer-parts.ts';
import type { SeededRandom } from '../engine/seeded-random.ts';

export type AlarmName = 'HighCpuUsage' | 'HighMemoryUsage';

/** The system alarm list's record (reference notes §7). */
export interface SystemAlarmRecord {
  name: AlarmName;
  message: string;
  /** Unix seconds. */
  create_time: number;
}

/** One node's simulated OS load, fractions 0..1. */
export interface NodeLoad {
  cpu: number;
  memory: number;
}

/** Alarms kept per node; the oldest go first. */
const MAX_ALARMS_PER_NODE = 1_000;

/** The list of a node that raised none (never written to). */
const NO_ALARMS = new RecordIndex<SystemAlarmRecord>();
const SYSTEM_MONITOR_INTERVAL_MS = 60_000;

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
const pct = (fraction: number): string => String(Math.round(fraction * 10_000) / 100);

/**
 * Simulated CPU and memory usage of each node, a slow seeded random walk sampled every 60 s, and the
 * alarms it raises: while `MqttSystemMonitor.enable`, every sample above `os_cpu_high_watermark` /
 * `os_memory_high_watermark` (fractions) records an alarm on that node. Alarms are node-local, as on
 * the real server: the list shows the answering node's alarms.
 */
export class SystemAlarms {
  private readonly load = new Map<number, NodeLoad>();
  /** Per node, its alarms under increasing keys (insertion order is raise order); the oldest go first. */
  private readonly alarms = new Map<number, RecordIndex<SystemAlarmRecord>>();
  private alarmSeq = 0;
  private rng!: SeededRandom;

  constructor(
    private readonly deps: Pick<MqttBrokerDeps, 'engine' | 'config' | 'nodes'>,
    /** Called with each alarm, so the broker can publish it on `$SYS/brokers/alarms/alert`. */
    private readonly onAlarm: (nodeId: number, alarm: SystemAlarmRecord) => void,
  ) {}

  start(): void {
    this.rng = this.deps.engine.random.fork('mqtt.system-load');
    this.deps.engine.every(SYSTEM_MONITOR_INTERVAL_MS, 'mqtt.system-monitor', () => this.sample());
  }

  /** Last sampled load of a node; undefined before its first sample. Reading never draws randomness. */
  currentLoad(nodeId: number): NodeLoad | undefined {
    const l = this.load.get(nodeId);
    return l ? { ...l } : undefined;
  }

  /** Load of a node, initialised on its first sample. */
  private loadOf(nodeId: number): NodeLoad {
    let l = this.load.get(nodeId);
    if (!l) {
      l = { cpu: 0.15 + this.rng.next() * 0.3, memory: 0.35 + this.rng.next() * 0.3 };
      this.load.set(nodeId, l);
    }
    return l;
  }

  alarmsOf(nodeId: number): SystemAlarmRecord[] {
    return (this.alarms.get(nodeId)?.values() ?? []).map((a) => ({ ...a }));
  }

  /** A node's alarm list (each as a copy), served from the sorted indexes. */
  listing(nodeId: number): IndexedList<IndexEntry<SystemAlarmRecord>, SystemAlarmRecord> {
    return (this.alarms.get(nodeId) ?? NO_ALARMS).listing((a) => ({ ...a }));
  }

  private sample(): void {
    const cfg = this.deps.config.current().MqttSystemMonitor;
    for (const node of this.deps.nodes.online()) {
      const l = this.loadOf(node.id);
      // CPU wanders faster than memory and now and then spikes, so alarms come and go.
      const spike = this.rng.chance(0.03) ? 0.35 : 0;
      l.cpu = clamp(l.cpu * 0.9 + 0.03 + (this.rng.next() - 0.5) * 0.12 + spike, 0.02, 0.99);
      l.memory = clamp(l.memory + (this.rng.next() - 0.5) * 0.04, 0.1, 0.97);
      if (!cfg.enable) continue;
      if (l.cpu > cfg.os_cpu_high_watermark) this.raise(node.id, 'HighCpuUsage', l.cpu, cfg.os_cpu_high_watermark);
      if (l.memory > cfg.os_memory_high_watermark) this.raise(node.id, 'HighMemoryUsage', l.memory, cfg.os_memory_high_watermark);
    }
  }

  private raise(nodeId: number, name: AlarmName, usage: number, watermark: number): void {
    const alarm: SystemAlarmRecord = {
      name,
      message: `${name} is ${pct(usage)}%, but config is ${pct(watermark)}%`,
      create_time: unixSeconds(this.deps.engine.now()),
    };
    let list = this.alarms.get(nodeId);
    if (!list) this.alarms.set(nodeId, (list = new RecordIndex({ viewsOfRecordsOnly: true })));
    list.set(String(this.alarmSeq++), alarm);
    while (list.size > MAX_ALARMS_PER_NODE) list.delete(list.keys().next().value as string);
    this.deps.engine.record('mqtt.alarm', { nodeId, name, usage: Math.round(usage * 10_000) });
    this.onAlarm(nodeId, alarm);
  }
}
