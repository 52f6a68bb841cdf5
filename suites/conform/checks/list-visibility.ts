import type { EndpointContract, ResourceFamilyContract } from '../../../contract/core/types.ts';
import { recordIdentity } from '../../../contract/family-rules.ts';
import { type ConformContext, describeAnswer, fail, inconclusive, pass, skip, type Verdict } from '../conform-context.ts';
import { type CreatedResources, listingEndpoint } from '../resource-families.ts';
import { isPage, wholeList } from './list-pages.ts';

/** What a list shows of the resources the run created and deleted (spec: the service manages the resource). */

/** A created fixture shows up in its list (spec: the service manages the resource: an acknowledged create is applied). */
export async function runShowsCreated(
  ctx: ConformContext,
  e: EndpointContract,
  family: ResourceFamilyContract,
  resources: CreatedResources,
  base: Record<string, unknown>,
): Promise<void> {
  const fields = resources.fixtures.get(family.key);
  const recorded = fields ? recordIdentity(family, fields) : undefined;
  if (!fields || !recorded) return;
  const props = Object.keys(((e.response.data ?? {}) as { properties?: Record<string, unknown> }).properties ?? {});
  const identity = Object.entries(recorded).filter(([k]) => props.includes(k));
  if (identity.length === 0) return;
  await ctx.check(e, 'list.shows-created', family.manages, async () => {
    const page = await wholeList(ctx, e, base);
    if (!isPage(page)) return fail(`the list was refused: ${describeAnswer(page)}`, page);
    const found = page.rows.some((r) => identity.every(([k, v]) => r[k] === v));
    if (found) return pass(`the ${family.key} created by the run is listed`);
    if (page.total > page.rows.length)
      return skip(`the list has more records (${page.total}) than one page; the ${family.key} may be on another page`);
    return fail(
      `the ${family.key} ${JSON.stringify(Object.fromEntries(identity))} created by the run (the create answered success) is missing from the list`,
      page.ex,
    );
  });
  await runCreatedValues(ctx, e, family, fields, identity);
}

/**
 * The listed record carries the values the create sent (spec: the resource tables name the same
 * fields in the create body and the record). Compared where both have the field in the same JSON
 * type; fields the list shows in another form (labels, local time, normalised config) are left out.
 */
async function runCreatedValues(
  ctx: ConformContext,
  e: EndpointContract,
  family: ResourceFamilyContract,
  fields: Record<string, unknown>,
  identity: [string, unknown][],
): Promise<void> {
  const props = ((e.response.data ?? {}) as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const skipFields = new Set(family.listing?.otherForm ?? []);
  const compared = Object.entries(fields).filter(
    ([k, v]) =>
      k in props && !skipFields.has(k) && v !== undefined && v !== null && typeof v !== 'object' && !identity.some(([id]) => id === k),
  );
  if (compared.length === 0) return;
  await ctx.check(e, 'list.created-values', family.manages, async () => {
    const page = await wholeList(ctx, e);
    if (!isPage(page)) return fail(`the list was refused: ${describeAnswer(page)}`, page);
    const row = page.rows.find((r) => identity.every(([k, v]) => r[k] === v));
    if (!row) return skip(`the ${family.key} created by the run is not on the first page`);
    // A text shown in other letter case is another form of the same value (a label), not a lost write.
    const sameText = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
    const wrong = compared.filter(([k, v]) => typeof row[k] === typeof v && row[k] !== v && !sameText(row[k], v));
    if (wrong.length > 0)
      return fail(
        `the listed ${family.key} differs from what was created: ${wrong.map(([k, v]) => `${k} ${JSON.stringify(row[k])} (sent ${JSON.stringify(v)})`).join(', ')}`,
        page.ex,
      );
    const same = compared.filter(([k, v]) => row[k] === v).map(([k]) => k);
    const otherForm = compared.filter(([k, v]) => typeof row[k] !== typeof v || (row[k] !== v && sameText(row[k], v))).map(([k]) => k);
    if (same.length === 0)
      return inconclusive(`no created field is listed in the form it was sent (${otherForm.join(', ')} shown in another form)`);
    return pass(`${same.length} fields as created${otherForm.length ? ` (${otherForm.join(', ')} shown in another form)` : ''}`);
  });
}

/** After a delete, the instance is gone from its list (spec: the service manages the resource). */
export async function runGoneAfterDelete(
  ctx: ConformContext,
  deleteEndpoint: EndpointContract,
  family: ResourceFamilyContract,
  fields: Record<string, unknown>,
  listedBefore: boolean | undefined,
): Promise<void> {
  const list = listingEndpoint(ctx, family);
  const recorded = recordIdentity(family, fields);
  if (!list || !recorded) return;
  const props = Object.keys(((list.response.data ?? {}) as { properties?: Record<string, unknown> }).properties ?? {});
  const identity = Object.entries(recorded).filter(([k]) => props.includes(k));
  if (identity.length === 0) return;
  await ctx.check(deleteEndpoint, 'delete.gone-from-list', family.manages, async (): Promise<Verdict> => {
    const v = await goneVerdict();
    return family.deleteBody && (v.status === 'pass' || v.status === 'fail') ? { ...v, also: [family.deleteBody] } : v;
  });
  async function goneVerdict(): Promise<Verdict> {
    const page = await wholeList(ctx, list!);
    if (!isPage(page)) return fail(`the list was refused: ${describeAnswer(page)}`, page);
    if (page.rows.some((r) => identity.every(([k, v]) => r[k] === v)))
      return fail(
        `the deleted ${family.key} ${JSON.stringify(Object.fromEntries(identity))} is still listed (the delete answered success)`,
        page.ex,
      );
    if (listedBefore !== true)
      return inconclusive(
        `the ${family.key} is not listed after the delete, but it was not listed before it either, so its absence shows nothing`,
      );
    return pass(`the deleted ${family.key} was listed before and is no longer listed`);
  }
}
