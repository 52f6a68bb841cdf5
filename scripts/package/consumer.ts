/**
 * A TypeScript program using mqsim the way a package user does: `import … from 'mqsim'`. In this
 * repository it type-checks against the sources (tsconfig paths); the packed-install test copies it
 * next to the installed tarball, type-checks it against the declarations in dist/ and runs it.
 * It prints one JSON line for the test to check.
 */
import { conform, ControlError, createCluster, DIALECT_NAMES, VERSION, type DialectName, type Report, type SimulatedCluster } from 'mqsim';

const dialect: DialectName = DIALECT_NAMES[0];
const cluster: SimulatedCluster = createCluster({ nodes: 3, seed: 7, workload: 'none', dialect });
// The declarations are real types, not `any`: a wrong option does not compile (never called).
// @ts-expect-error nodes is a number
export const wrong = (): SimulatedCluster => createCluster({ nodes: 'three' });

const interception = cluster.intercept('http://broker.invalid:58080', { peer: '127.0.0.1' });
const listed = (await (await fetch('http://broker.invalid:58080/api/cluster/tenant/list')).json()) as { code: number };

cluster.advance(2_000);
const leader = cluster.nodes.leader();
if (leader === null) throw new Error('no meta leader after 2 s');
cluster.nodes.crash(leader);
let refused = '';
try {
  cluster.nodes.crash(leader);
} catch (e) {
  if (e instanceof ControlError) refused = e.message;
}
cluster.advance(5_000);

const report: Report = await conform({ target: cluster, only: ['/api/cluster/tenant/*'], properties: false });
await cluster.close();

console.log(
  JSON.stringify({
    version: VERSION,
    listedCode: listed.code,
    served: interception.served,
    leader,
    newLeader: cluster.nodes.leader(),
    refused,
    verdict: report.verdict,
    findings: report.findings.length,
    checks: report.summary.checks,
  }),
);
