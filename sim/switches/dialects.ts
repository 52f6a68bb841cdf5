/**
 * Dialects of `mqsim serve` (`--dialect NAME`): `spec` answers as the spec says; `robustmq` answers as
 * the real RobustMQ server at the reference notes' snapshot does wherever it differs, so that clients
 * written against it (its web dashboard, its own admin client, scripts) work against the simulator.
 * A dialect is nothing but a named set of deviation switches (sim/switches/catalogue.ts; this dialect's in sim/dialects/robustmq): one switch per
 * behaviour, each traced to the notes, so every difference can be switched, tested and proved on its
 * own, and `mqsim conform` against a dialect reports a known list of findings.
 */
import { DEVIATIONS, deviationById } from './catalogue.ts';
import type { EnvelopeForm } from '../admin-api/envelope.ts';
import type { Deviation } from '../admin-api/hooks/deviation.ts';

/** The dialects: `spec` answers as the spec says; `robustmq` as the real RobustMQ server does where it differs. */
export const DIALECT_NAMES = ['spec', 'robustmq'] as const;
/** One of {@link DIALECT_NAMES}. */
export type DialectName = (typeof DIALECT_NAMES)[number];

/** A behaviour of the implementation that the dialect does not reproduce, and why. */
interface OmittedBehaviour {
  readonly behaviour: string;
  readonly notes: string;
  readonly why: string;
}

export interface Dialect {
  readonly name: DialectName;
  readonly summary: string;
  /** Envelope form of the app's own answers (the switches may rewrite answers further). */
  readonly envelope: EnvelopeForm;
  /** Deviation switch ids, in the order their hooks compose. */
  readonly switches: readonly string[];
  readonly omitted: readonly OmittedBehaviour[];
  /** Switches of the catalogue that reproduce part of a behaviour a broader switch of the dialect covers. */
  readonly narrower?: Readonly<Record<string, string>>;
}

const SPEC: Dialect = {
  name: 'spec',
  summary: "answers as the spec says (the simulator's decisions where it is silent)",
  envelope: 'A',
  switches: [],
  omitted: [],
};

/**
 * The real server at the notes' snapshot (robustmq/robustmq 8bd49dc, 2026-08-21). Where its web
 * dashboard reads an older server's form, both forms are served (`extra-routes` keeps the spec's
 * /api/mqtt/message/* next to /api/cluster/message/*; the layouts switches add the older keys).
 */
const ROBUSTMQ: Dialect = {
  name: 'robustmq',
  summary: "answers as the real RobustMQ server at the reference notes' snapshot does where it differs from the spec",
  envelope: 'B',
  switches: [
    // Answer forms and extractor rejections (notes §2, §11.1-§11.2).
    'failure-code-100',
    'validation-texts-in-words',
    'grpc-wrapped-errors',
    'extractor-rejections-plain-text',
    'json-as-text-plain',
    // Routing (notes §1.2, §11.3-§11.4, §11.14-§11.15).
    'status-route-removed',
    'healthy-route-removed',
    'root-static-fallback',
    'unknown-path-empty-404',
    'wrong-method-empty-405',
    'extra-routes',
    'mcp-server',
    'share-group-routes',
    'record-delete-routes',
    'non-api-paths-open',
    'loopback-range-exempt',
    'rate-limit-delays',
    // Lists (notes §3, §11.5-§11.8).
    'default-page-size-10',
    'exact-match-true-is-fuzzy',
    'filter-values-unusable-in-query',
    'sort-lenient',
    // Records and behaviours (notes §4, §7, §8, §11.9-§11.29).
    'connector-status-stop',
    'connector-list-config-wrapped',
    'connector-names-global',
    'failure-strategy-unvalidated',
    'dead-letter-record-shape',
    'acl-ip-resource-type-refused',
    'tenant-update-clears-desc',
    'idempotent-deletes',
    'schema-create-needs-desc',
    'topic-create-needs-source',
    'schema-bind-list-needs-tenant',
    'health-node-placeholder',
    'health-cluster-placeholder',
    'mq9-times-in-seconds',
    'mq9-real-texts',
    'overview-no-placement-status',
    'node-extend-object',
    'status-meta-keys-indexed',
    'subscribe-detail-never-shared',
    'topic-detail-no-retain-at',
    'segment-no-config',
    'segment-detail-unknown-null',
    'monitor-data-newest-first',
    'flapping-defaults-real',
    'session-total-capped',
    'config-set-extra-types',
    'topic-create-idempotent',
    // Layouts of the older server its dashboard reads, next to the snapshot's (both forms).
    'config-get-real-layout',
    'shard-extend-storage-engine',
  ],
  narrower: {
    'tenant-list-default-limit-10': 'default-page-size-10',
    'subscribe-list-default-limit-10': 'default-page-size-10',
    'mq9-mail-list-create-time-in-seconds': 'mq9-times-in-seconds',
  },
  omitted: [
    {
      behaviour: 'message routes only under /api/cluster/message/* (switch message-routes-moved)',
      notes: 'notes §11.3, §1.2',
      why: 'dashboards released before the move post to /api/mqtt/message/*: the dialect serves both paths (extra-routes)',
    },
    {
      behaviour: 'GET / serves a built dashboard (switch root-serves-spa)',
      notes: 'notes §11.3, §6',
      why: 'the real server serves whatever ./dist holds: without one, the 404 of root-static-fallback; with `mqsim serve --ui DIR`, that directory',
    },
    {
      behaviour: 'config get shows admin.password and admin.jwt_secret in clear text',
      notes: 'notes §11.26, §4.1',
      why: 'secrets never leave the simulator: they stay redacted in every dialect',
    },
    {
      behaviour: 'handler panics drop the connection (message read without partition 0, out-of-range timestamps)',
      notes: 'notes §2.5',
      why: 'a crash is a bug the simulator does not reproduce; those requests get an error answer',
    },
    {
      behaviour: 'monitor series sampled every 30 s as per-second rates, every point kept (no 1-hour window)',
      notes: 'notes §11.23, §8.5',
      why: "the monitor's sampling schedule and ring store are the model's; see real-server-gaps.ts",
    },
    {
      behaviour: 'invalid config set JSON persisted before the parse error',
      notes: 'notes §11.26',
      why: 'not observable through the API (only a restart of the real server shows it)',
    },
  ],
};

export const DIALECTS: Readonly<Record<DialectName, Dialect>> = { spec: SPEC, robustmq: ROBUSTMQ };

export function dialectByName(name: string): Dialect | undefined {
  return (DIALECTS as Record<string, Dialect>)[name];
}

/**
 * The switches a served simulator runs: the dialect's, then the ones given by `--deviation`, without
 * repeats (a switch given twice composes once).
 */
export function switchesOf(dialect: DialectName, extra: readonly string[] = []): string[] {
  return [...new Set([...DIALECTS[dialect].switches, ...extra])];
}

/** A switch's line in `mqsim serve --help`: id, its standing to the spec, where it comes from, what it does. */
export function switchHelpLine(d: Deviation): string {
  return `  ${d.id.padEnd(34)} [${d.spec === 'breaks' ? 'breaks spec' : 'spec allows'}, ${(d.notes ?? '').replace(/^notes /, 'notes ')}] ${d.description}`;
}

/** One line per switch of a dialect (for --help). */
export function dialectHelp(name: DialectName): string {
  return DIALECTS[name].switches.map((id) => switchHelpLine(deviationById(id)!)).join('\n');
}

/**
 * The real server's switches (`notes` set) of `catalogue` that `dialect` does not account for: not
 * among its switches, not narrower than one of them, not named by an omitted behaviour. A new
 * switch of the real server belongs in one of the three.
 */
export function unaccountedSwitches(dialect: Dialect, catalogue: readonly Deviation[] = DEVIATIONS): string[] {
  const { switches, narrower = {}, omitted } = dialect;
  const omittedIds = new Set(omitted.flatMap((o) => [...o.behaviour.matchAll(/switch ([a-z0-9-]+)/g)].map((m) => m[1])));
  return catalogue
    .filter((d) => d.notes !== undefined && !switches.includes(d.id) && !omittedIds.has(d.id))
    .filter((d) => !(narrower[d.id] && switches.includes(narrower[d.id])))
    .map((d) => d.id);
}
