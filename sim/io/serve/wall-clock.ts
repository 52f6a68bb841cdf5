import type { WallClock } from '../../admin-api/admin-app.ts';

/**
 * The system's wall clock, which the live mode of the admin app follows (`mqsim serve`, a library
 * cluster made with `clock: 'wall'`). It lives on the I/O side: the admin API and the model never
 * read the system clock or set a timer themselves (sim/determinism.test.ts).
 */
export const SYSTEM_WALL_CLOCK: WallClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
};
