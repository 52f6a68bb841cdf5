import type { AdminSettings } from '../auth/admin-auth.ts';

/** 2026-01-01T00:00:00Z: the default start of virtual time, so runs read the same everywhere. */
const DEFAULT_EPOCH_MS = Date.UTC(2026, 0, 1);

export type WorkloadName = 'demo' | 'none';

/**
 * The administrator's built-in password and token signing secret: fine on loopback (where the spec
 * needs no token at all), and what `mqsim serve` refuses to listen beyond loopback with unless told
 * `--insecure-defaults` (scripts/cli/serve-secrets.ts). Both are public: they are in this source.
 */
export const DEFAULT_ADMIN_PASSWORD = 'admin';
export const DEVELOPMENT_JWT_SECRET = 'mqsim-change-me-in-production-0123456789';

export interface ClusterOptions {
  seed: string | number;
  /** Virtual time at which the cluster is handed over (served, tested), Unix ms. */
  epochMs?: number;
  /**
   * Virtual history before `epochMs`: the cluster starts this long before it and `start()` runs the
   * workload up to `epochMs`, so a served demo already has an hour of monitor samples. Default 0.
   */
  warmUpMs?: number;
  /** Number of simulated nodes (1-9). */
  nodes?: number;
  /** Address the nodes register (their `node_ip`) and listen on. */
  host?: string;
  /** HTTP port of node 1; node N listens on basePort + N - 1. */
  basePort?: number;
  clusterName?: string;
  workload?: WorkloadName;
  admin?: Partial<AdminSettings>;
  /** Static `meta_runtime` settings: how many offset and data consensus groups to run (default 1 each). */
  metaRuntime?: { offset_raft_group_num?: number; data_raft_group_num?: number };
  /** Static `mqtt_runtime.secret_free_login`: MQTT clients without a user name may log in (default false). */
  secretFreeLogin?: boolean;
}

export interface ResolvedClusterOptions {
  seed: string;
  epochMs: number;
  warmUpMs: number;
  nodes: number;
  host: string;
  basePort: number;
  clusterName: string;
  workload: WorkloadName;
  admin: AdminSettings;
  metaRuntime: { offset_raft_group_num: number; data_raft_group_num: number };
  secretFreeLogin: boolean;
}

/** The options with every default filled in; throws on a cluster size or warm-up the model cannot run. */
export function resolveClusterOptions(options: ClusterOptions): ResolvedClusterOptions {
  const nodes = options.nodes ?? 3;
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 9) throw new Error(`--nodes must be an integer from 1 to 9, got ${options.nodes}`);
  const resolved: ResolvedClusterOptions = {
    seed: String(options.seed),
    epochMs: options.epochMs ?? DEFAULT_EPOCH_MS,
    warmUpMs: options.warmUpMs ?? 0,
    nodes,
    host: options.host ?? '127.0.0.1',
    basePort: options.basePort ?? 58080,
    clusterName: options.clusterName ?? 'mqsim-cluster',
    workload: options.workload ?? 'none',
    admin: {
      username: options.admin?.username ?? 'admin',
      // With a hash (mqsim serve), login checks it and the clear password is kept only when known;
      // otherwise the clear one, or the default.
      ...(options.admin?.passwordHash
        ? {
            passwordHash: options.admin.passwordHash,
            ...(options.admin.password !== undefined ? { password: options.admin.password } : {}),
          }
        : { password: options.admin?.password ?? DEFAULT_ADMIN_PASSWORD }),
      jwtSecret: options.admin?.jwtSecret ?? DEVELOPMENT_JWT_SECRET,
      tokenTtlHours: options.admin?.tokenTtlHours ?? 8,
    },
    metaRuntime: {
      offset_raft_group_num: options.metaRuntime?.offset_raft_group_num ?? 1,
      data_raft_group_num: options.metaRuntime?.data_raft_group_num ?? 1,
    },
    secretFreeLogin: options.secretFreeLogin ?? false,
  };
  if (!(resolved.warmUpMs >= 0) || resolved.warmUpMs > resolved.epochMs)
    throw new Error(`warm-up must be between 0 and the epoch, got ${resolved.warmUpMs} ms`);
  return resolved;
}
