/**
 * Benchmark of the compiled response writers (sim/admin-api/response-writers.ts) against JSON.stringify on
 * the body of a 100-record page: the tenant list and the topic list (records with nested objects),
 * as the simulator answers them (envelope form A). Each writer writes the same body many times per
 * round; the median ns per body over the rounds is printed, with the ratio. A figure, not a test.
 *
 *   npm run bench:serializers -- [--records 100] [--rounds 15] [--ops 2000]
 */
import { endpointById } from '../contract/index.ts';
import { successWriter, type BodyWriter } from '../sim/admin-api/response-writers.ts';
import { InProcessSim } from '../sim/admin-api/in-process-client.ts';
import { argText } from './bench/script-args.ts';
import { median } from './bench/median.ts';

function positiveInt(name: string, fallback: string): number {
  const raw = argText(name, fallback);
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`bench-serializers: --${name} must be a whole number > 0, got ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return n;
}

const records = positiveInt('records', '100');
const rounds = positiveInt('rounds', '15');
const ops = positiveInt('ops', '2000');

const fmt = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

// ---- a page of each list, as the simulator answers it
const sim = new InProcessSim({ seed: 1, workload: 'none', nodes: 1 });
sim.advance(5_000); // consensus groups elect their leaders
for (let i = 0; i < records; i++) {
  const suffix = String(i).padStart(4, '0');
  sim.cluster.tenants.create({ tenant_name: `bench-tenant-${suffix}`, desc: `tenant ${i} of the serializer bench` });
  sim.cluster.topics.create({ tenant: 'default', topic_name: `bench/site${i % 17}/device-${suffix}` });
}

async function pageBody(path: string): Promise<unknown> {
  sim.advance(1_000);
  const res = await sim.get(`${path}?limit=${records}&page=1`);
  if (res.status !== 200 || res.json?.code !== 0) throw new Error(`${path}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
  // Parsed back into objects: the same keys in the same order as the records the simulator builds.
  return res.json;
}

/** Median ns per body of `write` over the rounds (`ops` bodies per round). */
function nsPerBody(write: BodyWriter, body: unknown): number {
  let sink = 0;
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < ops; i++) sink += write(body).length;
    samples.push(Number(process.hrtime.bigint() - t0) / ops);
  }
  if (sink === 0) throw new Error('nothing written');
  return median(samples);
}

process.stdout.write(
  `bench-serializers: ${records}-record pages, ${rounds} rounds of ${ops} bodies, median ns/body, Node ${process.version}\n\n`,
);
for (const [id, path] of [
  ['cluster.tenant.list', '/api/cluster/tenant/list'],
  ['cluster.topic.list', '/api/cluster/topic/list'],
] as const) {
  const body = await pageBody(path);
  const compiled = successWriter(endpointById(id), 'A');
  const bytes = JSON.stringify(body);
  if (compiled(body) !== bytes) throw new Error(`${id}: the compiled writer does not write the bytes of JSON.stringify`);
  // Warm both up before measuring (JIT), then alternate so drift hits both alike.
  nsPerBody(compiled, body);
  nsPerBody(JSON.stringify, body);
  const stringify = nsPerBody(JSON.stringify, body);
  const fast = nsPerBody(compiled, body);
  process.stdout.write(
    `${id.padEnd(22)} ${String(bytes.length).padStart(6)} bytes   JSON.stringify ${fmt(stringify).padStart(8)} ns   compiled ${fmt(fast).padStart(8)} ns   ${(stringify / fast).toFixed(2)}x\n`,
  );
}
