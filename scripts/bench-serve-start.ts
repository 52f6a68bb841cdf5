/**
 * Start of a big served cluster: wall time from launching `mqsim serve --clients N` (a fresh Node
 * process, sources through tsx) until its admin API answers — the demo's hour of warm-up included,
 * which is most of it. With `--before-rev REV` the same command on the sources of an earlier
 * revision (extracted beside this checkout) runs in turns with this checkout's, and the ratio of the
 * medians is printed. Also prints the warm-up progress lines the server wrote.
 *
 *   npm run bench:serve-start -- [--clients 100000] [--rounds 1] [--before-rev main] [--port 60700] [--heap-mb 1536]
 *
 * Ports: node 1 listens on --port, nodes 2 and 3 on the next two.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { argNumber, argText } from './bench/script-args.ts';
import { CHECKOUT_ROOT, checkoutBefore } from './bench/before-checkout.ts';

interface StartFigures {
  /** Launch until the URL line (the listeners are open). */
  readyMs: number;
  /** Launch until the first answer of GET /health/ready... any HTTP status counts as an answer. */
  answeredMs: number;
  progressLines: number;
  lastProgress: string;
}

async function startOnce(root: string, clients: number, port: number, heapMb: number): Promise<StartFigures> {
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${heapMb}`,
      join(root, 'bin', 'mqsim.js'),
      'serve',
      '--clients',
      String(clients),
      '--port',
      String(port),
      '--nodes',
      '3',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const line = out.split('\n').find((l) => l.startsWith('http'));
        if (line) resolve(line.trim());
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code} before listening:\n${stderr}`)));
    });
    const readyMs = performance.now() - t0;
    const res = await fetch(`${url}/health/ready`);
    await res.arrayBuffer();
    const answeredMs = performance.now() - t0;
    const progress = stderr.split('\n').filter((l) => l.includes('warm-up'));
    return { readyMs, answeredMs, progressLines: progress.length, lastProgress: progress[progress.length - 1] ?? '' };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

const clients = argNumber('clients', 100_000, { positive: true });
const rounds = argNumber('rounds', 1, { positive: true });
const port = argNumber('port', 60_700, { positive: true });
const heapMb = argNumber('heap-mb', 1536, { positive: true });
const beforeRev = argText('before-rev', '');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

console.log(
  `bench-serve-start: mqsim serve --clients ${clients} --nodes 3 (heap limit ${heapMb} MB), ${rounds} round(s), Node ${process.version}`,
);
const before = beforeRev ? checkoutBefore(beforeRev) : undefined;
try {
  const now: StartFigures[] = [];
  const was: StartFigures[] = [];
  for (let i = 0; i < rounds; i++) {
    // In turns, so a busy moment of the shared machine touches both alike.
    if (before) {
      was.push(await startOnce(before.dir, clients, port, heapMb));
      console.log(`round ${i + 1} before (${beforeRev}): answered after ${s(was[i].answeredMs)} (listening after ${s(was[i].readyMs)})`);
    }
    now.push(await startOnce(CHECKOUT_ROOT, clients, port, heapMb));
    console.log(
      `round ${i + 1} this checkout: answered after ${s(now[i].answeredMs)} (listening after ${s(now[i].readyMs)}); ${now[i].progressLines} progress lines, the last: ${now[i].lastProgress}`,
    );
  }
  const mine = median(now.map((f) => f.answeredMs));
  console.log(`\nthis checkout: median ${s(mine)} until the API answers (target 15 s: ${mine <= 15_000 ? 'MET' : 'NOT MET'})`);
  if (before) {
    const theirs = median(was.map((f) => f.answeredMs));
    console.log(`before (${beforeRev}): median ${s(theirs)}; ratio this checkout / before ${(mine / theirs).toFixed(2)}`);
  }
} finally {
  before?.remove();
}
