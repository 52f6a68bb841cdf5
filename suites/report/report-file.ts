import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Report } from '../conform/report-model.ts';

/** A report file that cannot be used (missing, not JSON, not a report); the CLI exits 2 on it. */
export class ReportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReportFileError';
  }
}

/** A directory means its `report.json`. */
function reportPathOf(fileOrDir: string): string {
  try {
    if (statSync(fileOrDir).isDirectory()) return join(fileOrDir, 'report.json');
  } catch {
    // Missing: reported by the read below, with the name the user gave.
  }
  return fileOrDir;
}

const LEVELS: readonly string[] = ['MUST', 'SHOULD', 'INFO'];
const CHECK_STATUSES: readonly string[] = ['pass', 'fail', 'skipped', 'inconclusive'];
const ENDPOINT_STATUSES: readonly string[] = ['pass', 'fail', 'skipped', 'inconclusive', 'untested'];

/** The fixed shape, with its enums: merged reports are rendered again, so their values must be the known ones. */
function shapeProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  const r = value as Record<string, unknown>;
  if (typeof r.target !== 'string') return 'no "target"';
  if (typeof r.seed !== 'number') return 'no "seed"';
  if (!Array.isArray(r.endpoints)) return 'no "endpoints" array';
  // Baselines compare findings (since mqsim 0.2): a report without them cannot serve as one.
  if (!Array.isArray(r.findings))
    return 'no "findings" (written by mqsim before 0.2, which compared checks, not findings): make the baseline again with this version';
  for (const [i, e] of (r.endpoints as unknown[]).entries()) {
    const ep = e as Record<string, unknown> | null;
    if (!ep || typeof ep.method !== 'string' || typeof ep.path !== 'string' || !Array.isArray(ep.checks))
      return `endpoints[${i}] lacks method, path or checks`;
    if (!ENDPOINT_STATUSES.includes(ep.status as string)) return `endpoints[${i}].status is ${JSON.stringify(ep.status)}`;
    for (const [j, c] of (ep.checks as unknown[]).entries()) {
      const ch = c as Record<string, unknown> | null;
      if (!ch || typeof ch.id !== 'string' || typeof ch.message !== 'string' || typeof ch.assertion !== 'string')
        return `endpoints[${i}].checks[${j}] lacks id, assertion or message`;
      if (!LEVELS.includes(ch.level as string) || !CHECK_STATUSES.includes(ch.status as string))
        return `endpoints[${i}].checks[${j}] has level ${JSON.stringify(ch.level)}, status ${JSON.stringify(ch.status)}`;
    }
  }
  return undefined;
}

/**
 * Reads a `report.json` written by `mqsim conform` (a file, or a directory holding one): the fixed
 * shape plus the findings and the checks' assertions, which baselines and merges work on.
 */
export function readReportFile(fileOrDir: string): { file: string; report: Report } {
  const file = reportPathOf(fileOrDir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ReportFileError(
      `cannot read report ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ReportFileError(`report ${file} is not JSON: ${(e as Error).message}`);
  }
  const problem = shapeProblem(json);
  if (problem) throw new ReportFileError(`${file} is not a mqsim conform report: ${problem}`);
  return { file, report: json as Report };
}
