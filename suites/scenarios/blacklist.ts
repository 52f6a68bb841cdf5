import { fail, pass, skip } from '../conform/conform-context.ts';
import type { ScenarioSuite } from './scenario-suite.ts';
import { readList } from '../conform/check-helpers.ts';
import { unknownDelete } from './duplicates.ts';

/**
 * Blacklist entries (spec: path only; shapes from the reference notes, so INFO). The generic checks
 * cover lengths, blacklist_type values, end_time at least 1, the fuzzy filters, sorting and paging;
 * here: the end time given in Unix seconds (the spec's input time) listed as local time.
 */

/** `YYYY-MM-DD` of Unix seconds, a day either side (the server's time zone is not known). */
function datesAround(seconds: number): string[] {
  return [-86_400, 0, 86_400].map((d) => new Date((seconds + d) * 1000).toISOString().slice(0, 10));
}

export const blacklist: ScenarioSuite = {
  name: 'blacklist',
  tags: ['blacklist'],
  scenarios: [
    {
      endpoint: 'GET /api/cluster/blacklist/list',
      checks: ['blacklist.end-time-local', 'blacklist.end-time-seconds'],
      assertion: 'notes.shape.blacklist-entry',
      async run(ctx, e, env) {
        const fixture = env.resources.fixtures.get('blacklist');
        const got = fixture ? await readList(ctx, e.path, { tenant: fixture.tenant, name: fixture.name }) : undefined;
        const row = got?.rows.find((r) => r.name === fixture!.name && r.tenant === fixture!.tenant);
        // Spec, general conventions: "| Input time | Unix timestamp in seconds |": the end time sent is read as seconds,
        // whatever form the list shows it in (local time, Unix seconds or milliseconds) — a server reading milliseconds lists 1970.
        await ctx.check(e, 'blacklist.end-time-seconds', 'conventions.input-time', () => {
          if (!fixture) return skip('the run has no blacklist entry');
          if (!row) return skip(`the entry ${String(fixture.name)} is not listed (see blacklist.end-time-local)`);
          const end = Number(fixture.end_time);
          const shown = row.end_time;
          const asSeconds =
            typeof shown === 'number' ? shown === end || shown === end * 1000 : datesAround(end).some((d) => String(shown).startsWith(d));
          if (!asSeconds)
            return fail(
              `end_time was sent as ${end} (Unix seconds, ${new Date(end * 1000).toISOString()}), but the list shows ${JSON.stringify(shown)}: the input was not read as seconds`,
              got?.ex,
            );
          return pass(`end_time ${end} sent in Unix seconds is listed as that time (${JSON.stringify(shown)})`);
        });
        await ctx.check(e, 'blacklist.end-time-local', 'notes.shape.blacklist-entry', async () => {
          if (!fixture) return skip('the run has no blacklist entry');
          if (!row) return fail(`the entry ${String(fixture.name)} is not listed`, got?.ex);
          const end = Number(fixture.end_time);
          const shown = String(row.end_time);
          if (!datesAround(end).some((d) => shown.startsWith(d)))
            return fail(
              `end_time was sent as ${end} (Unix seconds, ${new Date(end * 1000).toISOString()}), the list shows ${JSON.stringify(row.end_time)}`,
              got?.ex,
            );
          return pass(`end_time ${end} (Unix seconds in) is listed as ${JSON.stringify(row.end_time)} (local time out)`);
        });
      },
    },
    unknownDelete('blacklist', 'decision.blacklist.delete-unknown'),
  ],
};
