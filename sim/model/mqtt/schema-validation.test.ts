import { describe, expect, it } from 'vitest';
import { InProcessSim } from '../../admin-api/in-process-client.ts';
import { setConfig } from './testing/set-config.ts';

const JSON_SCHEMA = JSON.stringify({ type: 'object', required: ['celsius'], properties: { celsius: { type: 'number' } } });
const AVRO_SCHEMA = JSON.stringify({
  type: 'record',
  name: 'Reading',
  fields: [
    { name: 'celsius', type: 'double' },
    { name: 'sensor', type: ['null', 'string'] },
  ],
});

async function setup(schemaConfig: Record<string, unknown>): Promise<InProcessSim> {
  const sim = new InProcessSim({ workload: 'none', nodes: 1, seed: 21 });
  const ok = async (path: string, body: unknown): Promise<void> => {
    const res = await sim.post(path, body);
    expect(res.json, `${path} ${JSON.stringify(res.json)}`).toMatchObject({ code: 0 });
    sim.advance(20);
  };
  await ok('/api/cluster/schema/create', {
    tenant: 'default',
    schema_name: 'reading-json',
    schema_type: 'json',
    schema: JSON_SCHEMA,
    desc: '',
  });
  await ok('/api/cluster/schema/create', {
    tenant: 'default',
    schema_name: 'reading-avro',
    schema_type: 'avro',
    schema: AVRO_SCHEMA,
    desc: '',
  });
  await ok('/api/cluster/schema/create', {
    tenant: 'default',
    schema_name: 'reading-proto',
    schema_type: 'protobuf',
    schema: 'syntax = "proto3"; message R { double celsius = 1; }',
    desc: '',
  });
  await ok('/api/cluster/schema-bind/create', { tenant: 'default', schema_name: 'reading-json', resource_name: 'sensors/+/temp' });
  await ok('/api/cluster/schema-bind/create', { tenant: 'default', schema_name: 'reading-avro', resource_name: 'sensors/s1/temp' });
  await ok('/api/cluster/schema-bind/create', { tenant: 'default', schema_name: 'reading-proto', resource_name: 'proto/topic' });
  await setConfig(sim, 'MqttSchema', { enable: true, ...schemaConfig });
  return sim;
}

const send = (sim: InProcessSim, topic: string, payload: string) =>
  sim.post('/api/mqtt/message/send', { tenant: 'default', topic, payload });

describe('schema validation of published messages', () => {
  it('is off unless MqttSchema.enable', async () => {
    const sim = new InProcessSim({ workload: 'none', nodes: 1, seed: 21 });
    sim.cluster.schemas.create({ tenant: 'default', name: 's', schema_type: 'json', schema: JSON_SCHEMA, desc: '' });
    sim.cluster.schemas.bind('default', 's', 'a/b');
    expect(sim.cluster.mqtt.publish({ tenant: 'default', topic: 'a/b', payload: 'not json', qos: 0, retain: false }).ok).toBe(true);
  });

  it('Strict + Disconnect: a message must match ALL bound schemas; a failing one is refused and its client disconnected', async () => {
    const sim = await setup({ strategy: 'Strict', failed_operation: 'Disconnect' });
    expect((await send(sim, 'sensors/s2/temp', '{"celsius":21.5}')).json.code).toBe(0);
    const bad = await send(sim, 'sensors/s2/temp', '{"celsius":"warm"}');
    expect(bad.json).toMatchObject({ code: 1, message: expect.stringContaining('reading-json') });
    // s1 is bound to json and avro: the avro field `sensor` must be a string or null.
    expect((await send(sim, 'sensors/s1/temp', '{"celsius":20,"sensor":"a"}')).json.code).toBe(0);
    expect((await send(sim, 'sensors/s1/temp', '{"celsius":20,"sensor":5}')).json.message).toContain('reading-avro');
    expect((await send(sim, 'other/topic', 'anything')).json.code).toBe(0);
    // Protobuf payloads are not decoded: accepted.
    expect((await send(sim, 'proto/topic', '\u0001binary')).json.code).toBe(0);

    const mqtt = sim.cluster.mqtt;
    expect(mqtt.connect({ tenant: 'default', clientId: 'pub' }).ok).toBe(true);
    const refused = mqtt.publish({ tenant: 'default', clientId: 'pub', topic: 'sensors/s9/temp', payload: '{}', qos: 1, retain: false });
    expect(refused).toEqual({ ok: false, reason: expect.stringContaining('client pub disconnected'), refusal: 'payload-format' });
    expect(mqtt.isConnected('default', 'pub')).toBe(false);
  });

  it('Forward: matching ANY bound schema is enough', async () => {
    const sim = await setup({ strategy: 'Forward', failed_operation: 'Disconnect' });
    // Fails avro (sensor must be string|null) but matches the json schema.
    expect((await send(sim, 'sensors/s1/temp', '{"celsius":20,"sensor":5}')).json.code).toBe(0);
    expect((await send(sim, 'sensors/s1/temp', '{"sensor":"a"}')).json.code).toBe(1);
  });

  it('Ignore: a failing message is delivered anyway and logged in the trace', async () => {
    const sim = await setup({ strategy: 'Strict', failed_operation: 'Ignore' });
    const mqtt = sim.cluster.mqtt;
    expect(mqtt.connect({ tenant: 'default', clientId: 'sub' }).ok).toBe(true);
    mqtt.subscribe({ tenant: 'default', clientId: 'sub', path: 'sensors/#' });
    expect(mqtt.connect({ tenant: 'default', clientId: 'pub' }).ok).toBe(true);
    expect(
      mqtt.publish({ tenant: 'default', clientId: 'pub', topic: 'sensors/s3/temp', payload: 'oops', qos: 1, retain: false }),
    ).toMatchObject({ ok: true, delivered: 1 });
    expect(mqtt.isConnected('default', 'pub')).toBe(true);
    expect(sim.cluster.engine.trace.tail(20).some((e) => e.kind === 'mqtt.schema.invalid' && (e.detail as any).action === 'Ignore')).toBe(
      true,
    );
  });
});
