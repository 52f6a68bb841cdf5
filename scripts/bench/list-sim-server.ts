/**
 * The simulator side of the list benchmark: `mqsim serve`'s server (startClusterServer: one node, no
 * workload, the live wall clock) with the admin rate limit lifted and every list of LIST_CASES filled
 * with N records through the model. Prints its URL on stdout once listening and filled.
 *
 *   node --import tsx scripts/bench/list-sim-server.ts <records> [<endpoint id,...>]
 */
import { startClusterServer } from '../../sim/io/serve/cluster-server.ts';
import { SYSTEM_WALL_CLOCK } from '../../sim/io/serve/wall-clock.ts';
import { LIST_CASES } from './list-cases.ts';

const records = Number(process.argv[2]);
const only = process.argv[3] ? new Set(process.argv[3].split(',')) : undefined;
if (!Number.isInteger(records) || records < 1)
  throw new Error(`list-sim-server: records must be a whole number > 0, got ${process.argv[2]}`);

const running = await startClusterServer({ port: 0, nodes: 1, workload: 'none', seed: '1' });
const { cluster, app } = running;
cluster.config.set('ClusterLimit', { max_admin_http_uri_rate: 1_000_000_000 });
const t0 = performance.now();
for (const c of LIST_CASES) if (!only || only.has(c.id)) c.seed(cluster, records);
// Filling ran the model ahead of the wall clock (alarms): the served clock goes on from there.
app.followWallClockFrom(SYSTEM_WALL_CLOCK, cluster.now());
process.stderr.write(`list-sim-server: filled in ${Math.round(performance.now() - t0)} ms\n`);
process.stdout.write(`${running.baseUrl}\n`);
process.on('SIGTERM', () => void running.close().then(() => process.exit(0)));
