// Bootstrap of a worker thread that runs TypeScript: a worker does not inherit the main thread's
// tsx loader (module hooks are per thread), so it registers tsx itself and then imports the .ts
// entry named in workerData.entry. Works the same from `npx mqsim`, `npx tsx` and vitest.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
