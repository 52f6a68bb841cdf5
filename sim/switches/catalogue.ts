/**
 * Every deviation the simulator can be switched into (`mqsim serve --deviation ID`; resolved by
 * resolve-switches.ts for `AdminAppOptions.deviations`): invented bugs, and the real server's behaviours of the reference
 * notes §11 (`real-server-*.ts`), each marked as breaking a spec rule or allowed by the spec.
 * `deviations-caught.test.ts` runs the conformance suites against the simulator with each breaking
 * one on and proves the run reports it on the right endpoint; the ones marked `caught: false` say
 * why the current checks miss them.
 */
import { AUTH_DEVIATIONS } from '../faults/auth-deviations.ts';
import { BEHAVIOUR_DEVIATIONS } from '../faults/behaviour-deviations.ts';
import type { Deviation } from '../admin-api/hooks/deviation.ts';
import { ENVELOPE_DEVIATIONS } from '../faults/envelope-deviations.ts';
import { LIST_DEVIATIONS } from '../faults/list-deviations.ts';
import { REAL_SERVER_DEVIATIONS } from '../dialects/robustmq/real-server-deviations.ts';
import { REAL_SERVER_LAYOUTS } from '../dialects/robustmq/real-server-layouts.ts';
import { REAL_SERVER_EXTRA_ROUTES } from '../dialects/robustmq/real-server-extra-routes.ts';
import { REAL_SERVER_ROUTE_DEVIATIONS } from '../dialects/robustmq/real-server-routes.ts';
import { REAL_SERVER_VARIANTS } from '../dialects/robustmq/real-server-variants.ts';
import { RECORD_DEVIATIONS } from '../faults/record-deviations.ts';
import { VALIDATION_DEVIATIONS } from '../faults/validation-deviations.ts';

export const DEVIATIONS: readonly Deviation[] = [
  ...LIST_DEVIATIONS,
  ...RECORD_DEVIATIONS,
  ...BEHAVIOUR_DEVIATIONS,
  ...VALIDATION_DEVIATIONS,
  ...AUTH_DEVIATIONS,
  ...ENVELOPE_DEVIATIONS,
  ...REAL_SERVER_ROUTE_DEVIATIONS,
  ...REAL_SERVER_DEVIATIONS,
  ...REAL_SERVER_VARIANTS,
  ...REAL_SERVER_LAYOUTS,
  ...REAL_SERVER_EXTRA_ROUTES,
];

export const DEVIATION_IDS: readonly string[] = DEVIATIONS.map((d) => d.id);

const byId = new Map(DEVIATIONS.map((d) => [d.id, d]));

export function deviationById(id: string): Deviation | undefined {
  return byId.get(id);
}
