/**
 * Benchmark of the topic list over many topics (issue 5): N topics created through the model
 * (`topics.create`, four tenants, names in no particular order), then GET /api/cluster/topic/list
 * through the admin app in-process (routing, validation, handler, list query, envelope, JSON), page 1
 * and page 5,000, default order and sorted, with and without a filter. Each query runs several times;
 * the median is printed next to the baseline measured in the same run: the previous handler, which
 * sorted every topic and built every record per request before slicing the page (swapped in for the
 * baseline requests only).
 *
 *   npm run bench:topics -- [--topics 1000000] [--limit 100] [--runs 7] [--seed 1]
 *
 * Target: page 1 and page 5,000 (default order) within 50 ms each with 1,000,000 topics. Figures on a
 * shared machine are noisy.
 */
import { InProcessSim } from '../sim/admin-api/in-process-client.ts';
import { HANDLERS } from '../sim/admin-api/handlers/index.ts';
import type { Handler } from '../sim/admin-api/core/handler-types.ts';
import { isSystemTopic, type TopicRecord } from '../sim/model/storage/topics.ts';
import { argText } from './bench/script-args.ts';
import { median } from './bench/median.ts';

function positiveInt(name: string, fallback: string): number {
  const raw = argText(name, fallback);
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`bench-topic-list: --${name} must be a whole number > 0, got ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return n;
}

const topicCount = positiveInt('topics', '1000000');
const limit = positiveInt('limit', '100');
const runs = positiveInt('runs', '7');
const seed = argText('seed', '1');
const TENANTS = ['default', 'fleet-a', 'fleet-b', 'fleet-c'];

const fmt = (n: number, digits = 1): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

// ---- population
const sim = new InProcessSim({ seed, workload: 'none', nodes: 1 });
const { cluster } = sim;
sim.advance(5_000); // consensus groups elect their leaders
for (const t of TENANTS.slice(1)) cluster.tenants.create({ tenant_name: t, desc: 'bench' });
const rng = cluster.engine.random.fork('bench-topics');
const created: TopicRecord[] = [];
const buildStart = performance.now();
for (let i = 0; i < topicCount; i++) {
  // Names spread over the order (a random device id first), so inserts land all over the indexes.
  const name = `${rng.id().slice(0, 6)}/site${i % 977}/dev${i}${i % 50 === 0 ? '/$events' : ''}`;
  created.push(cluster.topics.create({ tenant: TENANTS[i % TENANTS.length], topic_name: name }));
}
const buildMs = performance.now() - buildStart;
process.stdout.write(
  `bench-topic-list: ${topicCount.toLocaleString('en-US')} topics created through the model in ${fmt(buildMs / 1000)} s; page size ${limit}, median of ${runs} runs, Node ${process.version}\n\n`,
);

// ---- the previous handler: sort everything, filter, build every record, then page (the baseline)
const indexedHandler = HANDLERS['cluster.topic.list'];
const naiveHandler: Handler = ({ params }) => {
  const type = params.topic_type as 'all' | 'normal' | 'system';
  return created
    .slice()
    .sort((a, b) =>
      a.tenant !== b.tenant ? (a.tenant < b.tenant ? -1 : 1) : a.topic_name < b.topic_name ? -1 : a.topic_name > b.topic_name ? 1 : 0,
    )
    .filter((t) => type === 'all' || (type === 'system') === isSystemTopic(t.topic_name))
    .map((t) => cluster.topics.view(t));
};
const handlers = HANDLERS as Record<string, Handler>;

async function timeQuery(query: string, handler: Handler, times: number): Promise<{ ms: number; body: string }> {
  handlers['cluster.topic.list'] = handler;
  const samples: number[] = [];
  let body = '';
  try {
    for (let i = 0; i < times; i++) {
      sim.advance(1_000); // stay within the per-path request rate (virtual time)
      const t0 = performance.now();
      const res = await sim.get(`/api/cluster/topic/list?${query}`);
      samples.push(performance.now() - t0);
      if (res.status !== 200 || res.json?.code !== 0) throw new Error(`${query}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
      body = res.text;
    }
  } finally {
    handlers['cluster.topic.list'] = indexedHandler;
  }
  return { ms: median(samples), body };
}

const queries: { label: string; query: string; target?: boolean }[] = [
  { label: 'page 1, default order', query: `limit=${limit}&page=1`, target: true },
  { label: 'page 5,000, default order', query: `limit=${limit}&page=5000`, target: true },
  { label: 'page 5,000, sort_field=topic_name desc', query: `limit=${limit}&page=5000&sort_field=topic_name&sort_by=desc` },
  { label: 'page 1, tenant=fleet-b (range)', query: `limit=${limit}&page=1&tenant=fleet-b` },
  { label: 'page 50, topic_type=system (type index)', query: `limit=${limit}&page=50&topic_type=system` },
];

const baselineRuns = Math.max(1, Math.min(runs, 3));
let allMet = true;
const rows: string[] = [];
for (const q of queries) {
  const indexed = await timeQuery(q.query, indexedHandler, runs);
  const naive = await timeQuery(q.query, naiveHandler, baselineRuns);
  if (indexed.body !== naive.body) throw new Error(`${q.label}: the indexed answer differs from the baseline's`);
  const met = indexed.ms <= 50;
  if (q.target) allMet &&= met;
  rows.push(
    `${q.label.padEnd(42)} ${fmt(indexed.ms).padStart(8)} ms   baseline ${fmt(naive.ms).padStart(8)} ms   ${fmt(naive.ms / indexed.ms, 0).padStart(6)}x faster` +
      (q.target ? `   target <= 50 ms ${met ? 'MET' : 'NOT MET'}` : ''),
  );
}
process.stdout.write(
  `${'query'.padEnd(42)} ${'indexed'.padStart(11)}   ${'baseline (sort per request)'.padStart(20)}\n${rows.join('\n')}\n\n`,
);
process.stdout.write(
  `answers identical to the baseline's for every query; target (page 1 and page 5,000 <= 50 ms): ${allMet ? 'MET' : 'NOT MET'}\n`,
);
process.stdout.write(`peak RSS ${fmt(process.resourceUsage().maxRSS / 1024, 0)} MB\n`);
