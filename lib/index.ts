/**
 * mqsim as a library: a deterministic simulated broker cluster serving the admin HTTP API in your
 * own process (for the unit tests of admin clients: dashboards, operators, CLIs), in-process
 * interception of its origin for `http`/`https`, `fetch` and undici, and the conformance suites as
 * a function returning the report.
 *
 * This module is the package's only entry point (`import { createCluster } from 'mqsim'`); the
 * files under `dist/` are not a public API and may move.
 *
 * @packageDocumentation
 */

export { createCluster } from './create-cluster.ts';
export type {
  ClusterListeners,
  ClusterRequestOptions,
  ClusterResponse,
  CreateClusterOptions,
  ListenOptions,
  SimulatedCluster,
} from './create-cluster.ts';
export { ControlError } from './cluster-controls.ts';
export type {
  ConnectorControls,
  LinkSettings,
  Mq9Controls,
  MqttConnect,
  MqttControls,
  MqttOutcome,
  NetworkControls,
  NodeControls,
  NodeState,
} from './cluster-controls.ts';
export type { Interception, InterceptOptions } from '../sim/io/http/intercept.ts';
export type { InvariantViolation } from '../sim/model/invariants/invariant-registry.ts';

export { conform } from './conform.ts';
export type { ConformOptions } from './conform.ts';
export type {
  CheckRecord,
  CheckRef,
  CheckRule,
  CheckStatus,
  Citation,
  EndpointReport,
  EndpointStatus,
  FailOn,
  Finding,
  FindingCheck,
  Level,
  Report,
  ReportSummary,
  RequestRecord,
  ResponseRecord,
  RunStop,
  SpecCoverage,
} from '../suites/conform/report-model.ts';
export { SetupError } from '../suites/conform/preflight.ts';
export { SelectionError } from '../suites/report/selection.ts';

export { DIALECT_NAMES } from '../sim/switches/dialects.ts';
export type { DialectName } from '../sim/switches/dialects.ts';
export type { EnvelopeForm } from '../sim/admin-api/envelope.ts';

import { PACKAGE_VERSION } from '../fixtures/package-version.ts';
/** The version of this package (`mqsim --version`, `GET /`, the reports' `tool.version`). */
export const VERSION: string = PACKAGE_VERSION;
