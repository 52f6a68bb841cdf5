import { expect } from 'vitest';
import type { InProcessSim } from '../../../admin-api/in-process-client.ts';

/**
 * Test helper: changes a run-time config section through `POST /api/cluster/config/set`, as an
 * operator would, so the tests check the effect of the API, not of a private setter.
 */
export async function setConfig(sim: InProcessSim, configType: string, fields: Record<string, unknown>): Promise<void> {
  const res = await sim.post('/api/cluster/config/set', { config_type: configType, config: JSON.stringify(fields) });
  expect(res.json, `config set ${configType} ${JSON.stringify(fields)}`).toMatchObject({ code: 0 });
}
