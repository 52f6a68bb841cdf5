import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Report } from '../../conform/report-model.ts';
import { renderHtml } from './html-writer.ts';
import { renderJunit } from './junit-writer.ts';

export interface WrittenReports {
  dir: string;
  json: string;
  html: string;
  junit: string;
}

/** Writes `report.json`, `index.html` and `junit.xml` into `dir` (created if missing). */
export function writeReports(report: Report, dir: string): WrittenReports {
  mkdirSync(dir, { recursive: true });
  const files = { dir, json: join(dir, 'report.json'), html: join(dir, 'index.html'), junit: join(dir, 'junit.xml') };
  writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(files.html, renderHtml(report));
  writeFileSync(files.junit, renderJunit(report));
  return files;
}

/** Replaces `latestDir` with a copy of `dir` (the `reports/latest/` convenience copy). */
export function copyToLatest(dir: string, latestDir: string): void {
  rmSync(latestDir, { recursive: true, force: true });
  mkdirSync(latestDir, { recursive: true });
  cpSync(dir, latestDir, { recursive: true });
}
