import { Pool } from 'undici';
import { processCpuMs } from './process-cpu.ts';

/**
 * Fixed-concurrency HTTP load with undici: `concurrency` loops, each sending its next request as soon
 * as the previous answer is read, over a pool of as many keep-alive connections. A warm-up is run and
 * discarded (JIT, connection set-up), then requests per second and latency percentiles are measured.
 */
export interface LoadOptions {
  url: string;
  method: 'GET' | 'POST';
  path: string;
  /** Body of request number n (POST); makes each create unique. */
  body?: (n: number) => unknown;
  headers?: Record<string, string>;
  concurrency: number;
  seconds: number;
  warmUpSeconds: number;
  /** The server's process: its CPU time over the measured phase is reported (Linux). */
  serverPid?: number;
}

export interface LoadResult {
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  firstError?: string;
  /** The server process's CPU time per measured request, µs (with serverPid, on Linux). */
  serverCpuUsPerRequest?: number;
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const pool = new Pool(o.url, { connections: o.concurrency, keepAliveTimeout: 30_000 });
  let n = 0;
  let errors = 0;
  let firstError: string | undefined;
  let measuring = false;
  let requests = 0;
  const latencies: number[] = [];
  let stopAt = performance.now() + o.warmUpSeconds * 1000;

  const one = async (): Promise<void> => {
    const body = o.body ? JSON.stringify(o.body(n++)) : undefined;
    const t0 = performance.now();
    try {
      const res = await pool.request({
        method: o.method,
        path: o.path,
        headers: { ...o.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        body,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) {
        errors++;
        firstError ??= `HTTP ${res.statusCode}: ${text.slice(0, 200)}`;
      }
    } catch (e) {
      errors++;
      firstError ??= (e as Error).message;
    }
    if (measuring) {
      latencies.push(performance.now() - t0);
      requests++;
    }
  };
  const phase = async (): Promise<void> => {
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (performance.now() < stopAt) await one();
      }),
    );
  };

  await phase();
  errors = 0;
  firstError = undefined;
  measuring = true;
  const cpuBefore = processCpuMs(o.serverPid);
  const t0 = performance.now();
  stopAt = t0 + o.seconds * 1000;
  await phase();
  const ms = performance.now() - t0;
  const cpuAfter = processCpuMs(o.serverPid);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const pct = (p: number): number =>
    Number((latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0).toFixed(2));
  return {
    requests,
    perSecond: Math.round(requests / (ms / 1000)),
    p50Ms: pct(50),
    p99Ms: pct(99),
    errors,
    ...(firstError ? { firstError } : {}),
    ...(cpuBefore !== undefined && cpuAfter !== undefined && requests > 0
      ? { serverCpuUsPerRequest: Number((((cpuAfter - cpuBefore) * 1000) / requests).toFixed(1)) }
      : {}),
  };
}
