import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The scheduler examples (examples/k8s, examples/github-actions) stay consistent with themselves and
 * with the image: no cluster or CI runner is at hand here, so what can drift is checked as text.
 * The mechanism they rely on (JOB_COMPLETION_INDEX + --shard-count, the merges) is run for real by
 * scripts/cli/job-shards.test.ts.
 */
const EXAMPLES = fileURLToPath(new URL('../examples/', import.meta.url));
const read = (dir: string) =>
  readdirSync(join(EXAMPLES, dir)).map((name) => ({ name, text: readFileSync(join(EXAMPLES, dir, name), 'utf8') }));
const DOCKERFILE = readFileSync(fileURLToPath(new URL('../Dockerfile', import.meta.url)), 'utf8');

describe('examples/k8s', () => {
  const manifests = read('k8s');

  it('each Indexed Job has as many completions as its --shard-count', () => {
    const indexed = manifests.filter((m) => /completionMode: Indexed/.test(m.text));
    expect(indexed.map((m) => m.name).sort()).toEqual(['chaos-sweep-indexed-job.yaml', 'conform-indexed-job.yaml']);
    for (const m of indexed) {
      const completions = /^\s*completions: (\d+)/m.exec(m.text)?.[1];
      const shards = /--shard-count=(\d+)/.exec(m.text)?.[1];
      expect(shards, m.name).toBeDefined();
      expect(completions, m.name).toBe(shards);
      // Exit 1 (failing seeds, findings) is a result: not retried.
      expect(m.text, m.name).toMatch(/action: FailIndex\s+onExitCodes: \{ containerName: \w+, operator: In, values: \[1\] \}/);
    }
  });

  it('the merge Jobs read where the Indexed Jobs write', () => {
    const text = (name: string) => manifests.find((m) => m.name === name)!.text;
    expect(text('chaos-sweep-indexed-job.yaml')).toContain('--out-dir=/reports/chaos-sweep');
    expect(text('chaos-sweep-merge-job.yaml')).toMatch(/args: \[chaos, merge, \/reports\/chaos-sweep,/);
    expect(text('conform-indexed-job.yaml')).toContain('--report-dir=/reports/conform/shard-$(JOB_COMPLETION_INDEX)');
    expect(text('conform-merge-job.yaml')).toContain('mqsim report merge /reports/conform/shard-*');
  });

  it('use the image as the Dockerfile makes it: its user for the volume, its health check script', () => {
    expect(DOCKERFILE).toMatch(/^USER node$/m);
    for (const m of manifests) expect(m.text, m.name).toMatch(/fsGroup: 1000/);
    const script = /COPY docker\/healthcheck\.mjs (\S+)/.exec(DOCKERFILE)![1];
    expect(manifests.find((m) => m.name === 'conform-indexed-job.yaml')!.text).toContain(`[node, ${script}, --port, "58080"]`);
  });
});

describe('examples/github-actions', () => {
  it('each matrix numbers its jobs 0 … n-1 for JOB_COMPLETION_INDEX, n being the --shard-count', () => {
    for (const w of read('github-actions')) {
      const index = /index: \[([\d, ]+)\]/
        .exec(w.text)![1]
        .split(',')
        .map((s) => Number(s.trim()));
      const shards = Number(/--shard-count (\d+)/.exec(w.text)![1]);
      expect(index, w.name).toEqual(Array.from({ length: shards }, (_, i) => i));
      expect(w.text, w.name).toContain('JOB_COMPLETION_INDEX: ${{ matrix.index }}');
      expect(w.text, w.name).toMatch(/mqsim (report|chaos) merge /);
    }
  });
});
