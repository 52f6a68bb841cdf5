import type { EndpointStatus } from '../conform/report-model.ts';

/** One endpoint done: what the runner tells its caller as the run goes. */
export interface EndpointProgress {
  /** 1-based position in the run. */
  index: number;
  total: number;
  endpoint: { id: string; method: string; path: string; tag: string };
  status: EndpointStatus;
  checks: number;
  failed: number;
  durationMs: number;
  /** Failed checks of the run so far, this endpoint included. */
  failuresSoFar: number;
  mustFailuresSoFar: number;
}

function soFar(p: EndpointProgress): string {
  return `failures so far ${p.failuresSoFar}${p.failuresSoFar ? ` (MUST ${p.mustFailuresSoFar})` : ''}`;
}

/** `endpoint 12 of 68  pass  POST /api/… — 24 checks, 0 failed, 0.1 s; failures so far 0` */
export function endpointProgressLine(p: EndpointProgress): string {
  const n = String(p.index).padStart(String(p.total).length);
  return `endpoint ${n} of ${p.total}  ${p.status.padEnd(8)} ${p.endpoint.method} ${p.endpoint.path} — ${p.checks} checks, ${p.failed} failed, ${(p.durationMs / 1000).toFixed(1)} s; ${soFar(p)}`;
}

/** The one updating line of a terminal: position and failures first, so a narrow terminal keeps them. */
export function compactProgressLine(p: EndpointProgress, columns: number): string {
  const line = `endpoint ${p.index} of ${p.total}, ${soFar(p)} · ${p.endpoint.method} ${p.endpoint.path}`;
  return line.length > columns - 1 ? `${line.slice(0, Math.max(0, columns - 2))}…` : line;
}

/**
 * Progress on stderr: one line per endpoint into a log or pipe; on a terminal, one line updated in
 * place, with the permanent lines (fixtures, per-tag totals) printed above it.
 */
export class ProgressPrinter {
  private pending = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly tty: boolean,
    private readonly columns = 100,
  ) {}

  line(text: string): void {
    this.clear();
    this.write(`${text}\n`);
  }

  endpoint(p: EndpointProgress): void {
    if (!this.tty) {
      this.write(`${endpointProgressLine(p)}\n`);
      return;
    }
    this.write(`\r\x1b[K${compactProgressLine(p, this.columns)}`);
    this.pending = true;
  }

  /** Removes the updating line (before the final summary). */
  clear(): void {
    if (!this.pending) return;
    this.write('\r\x1b[K');
    this.pending = false;
  }
}
