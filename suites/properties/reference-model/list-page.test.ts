import { describe, expect, it } from 'vitest';
import { API } from '../../../contract/index.ts';
import { modelledFamilies } from './families.ts';
import { FamilyModel } from './family-model.ts';
import { judgePage, MAX_WORLDS, worldsOf, type PageQuery, type PageReader } from './list-page.ts';
import { shownOf } from './record-match.ts';

/** The ACL family: name and resource_name are what its list filters and sorts by. */
const ACL = modelledFamilies(API).find((m) => m.tag === 'acl')!;
const acl = () => new FamilyModel(ACL.family, ACL.endpoints);
const shown = (resource: string) =>
  shownOf(ACL.family, { resource_type: 'ClientId', resource_name: resource, action: 'All', permission: 'Allow' });
const create = (m: FamilyModel, name: string, resource: string, outcome: 'ok' | 'server-error' = 'ok') =>
  m.applyCreate({ tenant: 'T', name }, shown(resource), outcome);
const row = (name: string, resource: string) => ({ tenant: 'T', name, resource_name: resource, resource_type: 'ClientId' });

/** Reads name and resource_name of instances and rows. */
const reader: PageReader = {
  viewOf: (ident, s) => ({ name: ident.name, resource_name: String(s.resource_name) }),
  rowView: (r) => ({ name: String(r.name), resource_name: String(r.resource_name) }),
};

/** A query filtering names by contains and sorting by resource_name. */
function query(o: { name?: string; sort?: 'asc' | 'desc'; limit?: number; page?: number }): PageQuery {
  return {
    failedFilter: (v) => (o.name !== undefined && !v.name.includes(o.name) ? 'name' : undefined),
    ...(o.sort ? { sort: { field: 'resource_name', descending: o.sort === 'desc' } } : {}),
    limit: o.limit ?? 10,
    page: o.page ?? 1,
  };
}

const kinds = (v: ReturnType<typeof judgePage>) => (v.kind === 'deviates' ? v.problems.map((p) => p.kind) : v.kind);

describe('judging a page of a list against the reference model', () => {
  const model = () => {
    const m = acl();
    create(m, 'a', 'x');
    create(m, 'ab', 'y');
    create(m, 'b', 'y');
    create(m, 'ba', 'z');
    return m;
  };

  it('a sorted page is the slice of the sorted keys; which of two equal keys shows is not judged', () => {
    const m = model();
    // keys x, y, y, z: page 2 of limit 2 holds y and z; page 1 holds x and either y.
    expect(
      kinds(judgePage(m, query({ sort: 'asc', limit: 2, page: 2 }), { rows: [row('b', 'y'), row('ba', 'z')], total: 4 }, reader)),
    ).toBe('conforms');
    expect(
      kinds(judgePage(m, query({ sort: 'asc', limit: 2, page: 2 }), { rows: [row('ab', 'y'), row('ba', 'z')], total: 4 }, reader)),
    ).toBe('conforms');
    expect(
      kinds(judgePage(m, query({ sort: 'desc', limit: 3 }), { rows: [row('ba', 'z'), row('ab', 'y'), row('b', 'y')], total: 4 }, reader)),
    ).toBe('conforms');
  });

  it('a page out of order, the wrong slice, a wrong total or a page past the end that is not empty deviates', () => {
    const m = model();
    expect(kinds(judgePage(m, query({ sort: 'desc', limit: 2 }), { rows: [row('a', 'x'), row('b', 'y')], total: 4 }, reader))).toEqual([
      'order',
    ]);
    expect(kinds(judgePage(m, query({ sort: 'asc', limit: 1, page: 4 }), { rows: [row('b', 'y')], total: 4 }, reader))).toEqual(['order']);
    expect(
      kinds(judgePage(m, query({ limit: 10 }), { rows: [row('a', 'x'), row('ab', 'y'), row('b', 'y'), row('ba', 'z')], total: 7 }, reader)),
    ).toEqual(['total']);
    expect(kinds(judgePage(m, query({ limit: 2, page: 3 }), { rows: [row('a', 'x')], total: 4 }, reader))).toEqual(['page-size']);
  });

  it('without a sort field the order is not judged, the records and their number are', () => {
    const m = model();
    expect(kinds(judgePage(m, query({ name: 'b', limit: 2 }), { rows: [row('ba', 'z'), row('b', 'y')], total: 3 }, reader))).toBe(
      'conforms',
    );
    expect(kinds(judgePage(m, query({ name: 'b', limit: 2 }), { rows: [row('ba', 'z'), row('a', 'x')], total: 3 }, reader))).toEqual([
      'filter',
    ]);
    expect(kinds(judgePage(m, query({ name: 'b', limit: 2 }), { rows: [row('ba', 'z'), row('bz', 'q')], total: 3 }, reader))).toEqual([
      'unknown-record',
    ]);
    expect(kinds(judgePage(m, query({ name: 'b', limit: 2 }), { rows: [row('ba', 'z'), row('ba', 'z')], total: 3 }, reader))).toEqual([
      'duplicate',
    ]);
    expect(kinds(judgePage(m, query({ name: 'b', limit: 2 }), { rows: [row('ba', 'z'), row('b', 'q')], total: 3 }, reader))).toEqual([
      'values',
    ]);
  });

  it('an instance a 5xx left "maybe" may be there or not; the page that shows which settles it', () => {
    const m = model();
    create(m, 'c', 'w', 'server-error');
    expect(worldsOf(m, query({ sort: 'asc' }), reader)).toBe(2);
    // Page 1 of limit 1 sorted asc: "w" when c exists, "x" when it does not: both conform.
    expect(kinds(judgePage(m, query({ sort: 'asc', limit: 1 }), { rows: [row('a', 'x')], total: 4 }, reader))).toBe('conforms');
    // That page had total 4: c is not there, and the model now knows it.
    expect(m.get({ tenant: 'T', name: 'c' })).toBeUndefined();
    create(m, 'c', 'w', 'server-error');
    expect(kinds(judgePage(m, query({ sort: 'asc', limit: 1 }), { rows: [row('c', 'w')], total: 5 }, reader))).toBe('conforms');
    expect(m.get({ tenant: 'T', name: 'c' })?.maybe).toBe(false);
  });

  it('an accepted duplicate create may keep the old values or take the new ones; a record at the place of the old keys with the new values deviates', () => {
    const m = model();
    create(m, 'a', 'zz');
    expect(worldsOf(m, query({ sort: 'asc' }), reader)).toBe(2);
    // Kept at its old place (first), but showing the new value: no state explains that.
    expect(kinds(judgePage(m, query({ sort: 'asc', limit: 2 }), { rows: [row('a', 'zz'), row('ab', 'y')], total: 4 }, reader))).toEqual([
      'order',
    ]);
    // The new place, the new value: conforms, and settles the instance on the new values.
    expect(kinds(judgePage(m, query({ sort: 'desc', limit: 1 }), { rows: [row('a', 'zz')], total: 4 }, reader))).toBe('conforms');
    expect(m.get({ tenant: 'T', name: 'a' })?.candidates.map((c) => c.resource_name)).toEqual(['zz']);
  });

  it('a page that does not show an upserted record leaves its values open, whatever its slice fits: its place is no evidence', () => {
    const m = model();
    create(m, 'a', 'zz');
    // Keys with a's old value: x, y, y, z; with its new one: y, y, z, zz. Page 3 of limit 1 showing y
    // fits only the old values, but does not show a.
    expect(kinds(judgePage(m, query({ sort: 'asc', limit: 1, page: 3 }), { rows: [row('ab', 'y')], total: 4 }, reader))).toBe('conforms');
    expect(m.get({ tenant: 'T', name: 'a' })?.candidates.map((c) => c.resource_name)).toEqual(['x', 'zz']);
    // The whole list then shows a with the new value at the old place: an order fault, not a lost write.
    expect(
      kinds(
        judgePage(
          m,
          query({ sort: 'asc', limit: 9 }),
          { rows: [row('a', 'zz'), row('ab', 'y'), row('b', 'y'), row('ba', 'z')], total: 4 },
          reader,
        ),
      ),
    ).toEqual(['order']);
  });

  it('too many possible states are judged only on a page that shows every matching record', () => {
    const m = acl();
    for (let i = 0; i < 10; i++) create(m, `n${i}`, `r${i}`, 'server-error');
    expect(worldsOf(m, query({}), reader)).toBeGreaterThan(MAX_WORLDS);
    expect(judgePage(m, query({ sort: 'asc', limit: 2 }), { rows: [row('n0', 'r0'), row('n1', 'r1')], total: 10 }, reader).kind).toBe(
      'undecided',
    );
    const all = Array.from({ length: 4 }, (_, i) => row(`n${i}`, `r${i}`));
    expect(kinds(judgePage(m, query({ limit: 10_000 }), { rows: all, total: 4 }, reader))).toBe('conforms');
    expect(m.entries.size).toBe(4);
    expect([...m.entries.values()].every((e) => !e.maybe)).toBe(true);
  });
});
