/**
 * The text `mqsim conform --help` prints after the options: exit statuses, secrets, auth checks, list
 * histories, progress, patterns and shards, examples.
 */
export const CONFORM_HELP_TEXT = `
Failed checks are grouped into findings by cause (one broken rule of the spec, or one endpoint
answering server errors); every check cites the spec assertion it tests, and the report prints spec
coverage. Exit status: 0 when the run reached the API and no finding at the --fail-on level (default
must: MUST findings only) exists; 1 otherwise or when the run was vacuous (e.g. every request answered
401); 2 on a usage error, or when the run cannot start: nothing answers at --target, it is not this
API (e.g. a plain file server), or the login with --username/--password is refused. Then one sentence
on stderr says what to fix, and no report is written. Also 2 when the target stops answering in the
middle of the run (several requests in a row get no answer and neither /health/ready nor / answers):
the run ends there and its report has one finding, target-stopped, saying when and at which request.
With --baseline, 1 only for findings the baseline did not have (or that now show on more endpoints).

Secrets: --password and --jwt-secret never appear in a report; its replay command reads them from
$MQSIM_PASSWORD and $MQSIM_JWT_SECRET. Secrets the target shows in its answers (passwords, signing
secrets, tokens) are redacted in every artifact.

Auth checks send from a peer the spec does not exempt (127.0.0.2 on a loopback target). When the
target exempts that peer too (one MUST finding: the spec exempts only 127.0.0.1 and ::1), or it
cannot be bound, they are skipped with the reason: give --peer-address with another address of this host.

List histories (check property.history.lists): fast-check generates histories of writes and list
reads over every family with a list (tenants, users, ACL, blacklist, rewrite and auto-subscribe rules,
schemas and their bindings, connectors, topics), in tenants of the run, and judges every list answer
by the spec against the writes the target acknowledged: the filters, the sort in both directions, the
page asked for, total_count. A failure is shrunk to the shortest history that shows it, printed as curl
lines with its --property-path; --depth N runs longer histories (N steps each).

Progress goes to stderr: one line per endpoint ("endpoint n of N … failures so far"), or one
updating line on a terminal; --quiet prints only the verdict.

Patterns (--only, --skip): "*" stays within a path segment, "**" crosses segments; a pattern that
matches no endpoint is a usage error. Shards of one selection partition its checks: the endpoints
are dealt round robin, and so are the properties (a shard may call any endpoint a property needs);
run every i of 1..n (against separate servers, or with different --seed values against one server,
so fixtures do not collide), then merge the report directories: the merge has the checks of the
unsharded run. Under a scheduler that numbers its processes, --shard-count n takes the shard from
JOB_COMPLETION_INDEX (0-based: a Kubernetes Indexed Job with completions n sets it in each pod; set it
from a CI matrix too): shard JOB_COMPLETION_INDEX+1 of n. Examples: examples/k8s/, examples/github-actions/.

Examples:
  $ mqsim conform --target sim
  $ mqsim conform --target http://127.0.0.1:58080 --seed 7
  $ mqsim conform --target http://broker:58080 --username admin --password secret --report-dir out/conform
  $ mqsim conform --target http://127.0.0.1:58080 --username admin --password "$MQSIM_PASSWORD" --jwt-secret "$MQSIM_JWT_SECRET"
  $ mqsim conform --target http://127.0.0.1:58080 --peer-address 192.168.1.10 --mqtt 127.0.0.1:1883
  $ mqsim conform --target sim --json > report.json
  $ mqsim conform --target sim --only '/api/cluster/tenant/*,users' --skip 'POST /api/cluster/user/delete'
  $ mqsim conform --target http://broker:58080 --baseline baseline/report.json --report-dir conform-report
  $ mqsim conform --target sim --shard 1/2 --report-dir shard-1 --quiet
  $ mqsim conform --target sim --shard 2/2 --report-dir shard-2 --quiet
  $ mqsim report merge shard-1 shard-2 --out conform-report
  $ JOB_COMPLETION_INDEX=0 mqsim conform --target sim --shard-count 2 --report-dir shard-1 --quiet   # an Indexed Job's pod 0
  $ mqsim conform --target sim --seed 42 --property-path 'model.users~0:1:0:0~G:B'   # replay one property failure
  $ mqsim conform --target http://127.0.0.1:58080 --only tenants,users --depth 1000   # longer list histories
  $ mqsim conform --target sim --seed 3 --depth 1000 --property-path 'history.lists~0:4:3~412.3.3'   # replay a history failure at its depth
  $ mqsim conform --target docker:robustmq/robustmq:latest?port=58080   # needs a Docker engine`;
