import { familyByKey } from '../../contract/index.ts';
import { fixtureFields } from '../conform/resource-families.ts';
import { succeeded } from '../conform/conform-context.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import { expectRefused } from '../conform/check-helpers.ts';
import { duplicateCreate, unknownDelete } from './duplicates.ts';

/**
 * Topic rewrite rules (spec: Topic rewrite rule; Topics; Limits: tenant 1-128, source and destination
 * 1-256, regex 1-500). The generic checks cover lengths, the action values, the fuzzy filters, the
 * five sort fields, paging and create → list → delete; here: a regex that does not compile.
 */

const RULE = familyByKey('topic-rewrite');

export const topicRewrite: ScenarioSuite = {
  name: 'topic-rewrite',
  tags: ['topic-rewrite'],
  scenarios: [
    {
      endpoint: 'POST /api/cluster/topic-rewrite/create',
      checks: ['topic-rewrite.invalid-regex'],
      assertion: 'decision.rewrite.regex-compiles',
      async run(ctx, e, env) {
        const fields: Record<string, unknown> = { ...fixtureFields(ctx, RULE, '-rx'), regex: '^conform/(unclosed$' };
        const ex = (await env.resources.create(RULE, fields, 'check'))!;
        if (succeeded(ex)) await env.resources.delete(RULE, fields, 'cleanup');
        // "regular expression": one that does not compile can never match (decision: refused as invalid).
        await ctx.check(e, 'topic-rewrite.invalid-regex', 'decision.rewrite.regex-compiles', () =>
          expectRefused(ex, `regex ${JSON.stringify(fields.regex)} does not compile`),
        );
      },
    },
    duplicateCreate('topic-rewrite', 'decision.rules.duplicates'),
    unknownDelete('topic-rewrite', 'decision.rules.duplicates'),
  ],
};
