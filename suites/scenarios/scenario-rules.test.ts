import { describe, expect, it } from 'vitest';
import { CONNECTOR_CATALOGUE } from '../../contract/core/connector-catalogue.ts';
import { CONFIG_TYPES } from '../../contract/core/config-types.ts';
import { invalidCases, sectionOf } from './config.ts';
import { invalidConfigs, listedConfig, missingDefaults } from './connector-configs.ts';
import { SCENARIO_SUITES, scenariosFor, suiteOf } from './index.ts';
import { CONTRACT } from '../../contract/index.ts';
import { quorumTextProblem, removalTextProblem } from './node.ts';

describe('the family suites', () => {
  it('cover every tag of the contract, and every scenario names an endpoint of its family', () => {
    for (const e of CONTRACT) expect(suiteOf(e), `${e.tag} has no scenario suite`).toBeDefined();
    for (const f of SCENARIO_SUITES) {
      for (const s of f.scenarios) {
        const [method, path] = s.endpoint.split(' ');
        const e = CONTRACT.find((x) => x.method === method && x.path === path);
        expect(e, `${f.name}: ${s.endpoint} is not in the contract`).toBeDefined();
        expect(f.tags, `${s.endpoint} belongs to ${e!.tag}, not ${f.name}`).toContain(e!.tag);
        expect(s.checks.length).toBeGreaterThan(0);
      }
    }
    expect(scenariosFor(CONTRACT.find((e) => e.path === '/api/cluster/config/set')!).length).toBeGreaterThan(1);
  });
});

describe('connector cases from the catalogue', () => {
  it('break each type a few ways, each case naming the key the refusal should name', () => {
    for (const t of CONNECTOR_CATALOGUE) {
      const cases = invalidConfigs(t);
      expect(cases.length, t.id).toBeGreaterThanOrEqual(2);
      expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    }
    const kafka = invalidConfigs(CONNECTOR_CATALOGUE.find((t) => t.id === 'kafka')!);
    expect(kafka.map((c) => c.id)).toEqual([
      'missing-bootstrap_servers',
      'batch_size-below-1',
      'batch_size-above-1048576',
      'compression_type-not-in-enum',
      'key-too-long',
    ]);
    expect(kafka[0].config).toEqual({ topic: 'mqtt-messages' });
    const mysql = invalidConfigs(CONNECTOR_CATALOGUE.find((t) => t.id === 'mysql')!);
    const template = mysql.find((c) => c.id === 'rule-mysql-sql-template-three-placeholders')!;
    expect(String(template.config.sql_template).split('?').length - 1).toBe(2);
    const influx = invalidConfigs(CONNECTOR_CATALOGUE.find((t) => t.id === 'influxdb')!);
    // v1 without its credentials: the v2 fields are emptied, so only the one rule is broken.
    expect(influx.find((c) => c.id === 'rule-influxdb-v1-needs-database-credentials')!.config).toMatchObject({
      version: 'v1',
      token: '',
      org: '',
      bucket: '',
    });
  });

  it('read a listed config, nested or not, and find missing defaults', () => {
    const file = CONNECTOR_CATALOGUE.find((t) => t.id === 'file')!;
    expect(listedConfig('{"LocalFile":{"local_file_path":"/x","rotation_strategy":"none","max_size_gb":1}}')).toEqual({
      local_file_path: '/x',
      rotation_strategy: 'none',
      max_size_gb: 1,
    });
    expect(listedConfig('not json')).toBeUndefined();
    expect(missingDefaults(file, { local_file_path: '/x', rotation_strategy: 'none', max_size_gb: 1 })).toEqual([]);
    expect(missingDefaults(file, { local_file_path: '/x' })).toEqual([
      'rotation_strategy undefined (default "none")',
      'max_size_gb undefined (default 1)',
    ]);
  });
});

describe('config cases', () => {
  it('find a section at the top level or under mqtt_runtime, and break each section at most twice', () => {
    expect(sectionOf({ mqtt_schema: { enable: true } }, 'mqtt_schema')).toEqual({ enable: true });
    expect(sectionOf({ mqtt_runtime: { schema: { enable: true } } }, 'mqtt_schema')).toEqual({ enable: true });
    for (const t of CONFIG_TYPES) {
      const cases = invalidCases(t);
      expect(cases.length, t.configType).toBeGreaterThan(0);
      expect(cases.length).toBeLessThanOrEqual(2);
    }
    // The watermarks' range is stated ("range 0 to 1"): their refusal cites the section's row (MUST).
    expect(invalidCases(CONFIG_TYPES.find((t) => t.configType === 'MqttSystemMonitor')!).map((c) => [c.config, c.assertion])).toEqual([
      [{ os_cpu_high_watermark: 1.5 }, 'config.set.type.system-monitor'],
      [{ os_memory_high_watermark: 1.5 }, 'config.set.type.system-monitor'],
    ]);
    expect(
      invalidCases(CONFIG_TYPES.find((t) => t.configType === 'MqttProtocol')!).every((c) => c.assertion === 'decision.config.field-checks'),
    ).toBe(true);
  });
});

describe('node removal texts', () => {
  it('rule 5 states the removal and the wipe; rule 2 names group, node and voter count', () => {
    expect(
      removalTextProblem('Node 3 removed from the cluster. Wipe its data directory before rejoining as a new node.', 3),
    ).toBeUndefined();
    expect(removalTextProblem('success', 3)).toMatch(/does not state that the node was removed/);
    expect(removalTextProblem('Node 3 removed', 3)).toMatch(/wiped/);
    expect(
      quorumTextProblem('[meta] refuse to remove node 2: only 2 voters, removing one would break quorum', 2, ['meta', 'mqtt'], 2),
    ).toBeUndefined();
    expect(quorumTextProblem('refused', 2, ['meta'], 2)).toMatch(/a group \(meta\), node 2, the voter count 2/);
  });
});
