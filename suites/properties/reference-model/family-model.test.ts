import { describe, expect, it } from 'vitest';
import type { Mutation } from '../arbitraries/param-arbitraries.ts';
import { BindingModel } from './binding-model.ts';
import { FamilyModel } from './family-model.ts';
import { API } from '../../../contract/index.ts';
import { modelledFamilies, QUOTA_DEFAULTS } from './families.ts';

/** The modelled families of the built-in contract, by tag. */
const FAMILIES = Object.fromEntries(modelledFamilies(API).map((m) => [m.tag, m]));
import { OMITTED, shownOf } from './record-match.ts';

const users = () => new FamilyModel(FAMILIES.users.family, FAMILIES.users.endpoints);
const tenants = () => new FamilyModel(FAMILIES.tenants.family, FAMILIES.tenants.endpoints);
const u = (name: string) => ({ tenant: 'T', username: name });
const userRow = (name: string, is_superuser = false) => ({ tenant: 'T', username: name, is_superuser, create_time: 1 });
const all = () => true;

const tooLong: Mutation = {
  path: 'username',
  rule: 'too-long',
  value: 'x'.repeat(65),
  assertion: 'limits.user',
  namingAssertion: 'errors.case.rejected-body',
};
const missing: Mutation = {
  path: 'username',
  rule: 'missing',
  assertion: 'endpoints.user.create',
  namingAssertion: 'errors.case.rejected-body',
};

describe('reference model: creates, deletes and the list', () => {
  it('a new name must be created; afterwards the list must show it with its fields', () => {
    const m = users();
    expect(m.expectCreate(u('a'), undefined, false)).toMatchObject({
      allowed: ['ok'],
      assertion: 'endpoints.index.user-manage',
      rule: 'create.new-succeeds',
    });
    m.applyCreate(u('a'), shownOf(FAMILIES.users.family, { is_superuser: true }), 'ok');
    expect(m.reconcile([], all)).toEqual(['{"tenant":"T","username":"a"} was created and not deleted, but the list does not show it']);
    m.applyCreate(u('a'), shownOf(FAMILIES.users.family, { is_superuser: true }), 'ok');
    expect(m.reconcile([userRow('a', false)], all)).toEqual(['{"tenant":"T","username":"a"} shows is_superuser is false, expected true']);
  });

  it('a refused create leaves nothing; accepting a name outside ASCII is a decision (INFO)', () => {
    const m = users();
    expect(m.expectCreate(u('é'), undefined, true).assertion).toBe('decision.non-ascii-text');
    m.applyCreate(u('a'), shownOf(FAMILIES.users.family, { is_superuser: false }), 'failure');
    expect(m.entries.size).toBe(0);
    expect(m.reconcile([userRow('a')], all)[0]).toContain('never created it');
  });

  it('a duplicate create may be refused or accepted, and then the list may show the old or the new fields', () => {
    const m = users();
    m.applyCreate(u('a'), shownOf(FAMILIES.users.family, { is_superuser: false }), 'ok');
    const exp = m.expectCreate(u('a'), undefined, false);
    expect(exp.allowed).toEqual(['ok', 'invalid', 'failure']);
    m.applyCreate(u('a'), shownOf(FAMILIES.users.family, { is_superuser: true }), 'ok');
    for (const shown of [false, true]) {
      const copy = users();
      copy.applyCreate(u('a'), shownOf(FAMILIES.users.family, { is_superuser: false }), 'ok');
      copy.applyCreate(u('a'), shownOf(FAMILIES.users.family, { is_superuser: true }), 'ok');
      expect(copy.reconcile([userRow('a', shown)], all)).toEqual([]);
      // Resolved: the next list must agree with what this one showed.
      expect(copy.reconcile([userRow('a', !shown)], all)).toHaveLength(1);
    }
  });

  it('a delete of an existing name must succeed; of an unknown name any refusal or success goes', () => {
    const m = users();
    expect(m.expectDelete(u('a'), undefined).allowed).toEqual(['ok', 'invalid', 'failure']);
    m.applyCreate(u('a'), shownOf(FAMILIES.users.family, { is_superuser: false }), 'ok');
    expect(m.expectDelete(u('a'), undefined)).toMatchObject({ allowed: ['ok'], rule: 'delete.existing-succeeds' });
    m.applyDelete(u('a'), 'ok');
    expect(m.reconcile([userRow('a')], all)[0]).toContain('is listed, but the run never created it (or deleted it)');
    // Cleanup still knows the name.
    expect([...m.touched.values()]).toEqual([u('a')]);
  });

  it('an answer it cannot interpret leaves the instance maybe there; the next list decides', () => {
    for (const rows of [[], [userRow('a')]]) {
      const m = users();
      m.applyCreate(u('a'), shownOf(FAMILIES.users.family, { is_superuser: false }), 'server-error');
      expect(m.expectDelete(u('a'), undefined).allowed).toContain('failure');
      expect(m.reconcile(rows, all)).toEqual([]);
      expect(m.entries.size).toBe(rows.length);
    }
  });

  it('a request breaking one rule must be refused as invalid, naming the parameter; a name that exists or cannot exist gives a second reason', () => {
    const m = users();
    expect(m.expectCreate(u('x'.repeat(65)), tooLong, false)).toMatchObject({
      allowed: ['invalid'],
      namesParam: { param: 'username', assertion: 'errors.case.rejected-body' },
    });
    expect(m.expectCreate(undefined, missing, false).allowed).toEqual(['invalid']);
    m.applyCreate(u('a'), shownOf(FAMILIES.users.family, { is_superuser: false }), 'ok');
    expect(m.expectCreate(u('a'), { ...missing, path: 'password' }, false).allowed).toEqual(['invalid', 'failure']);
    expect(m.expectDelete(u('x'.repeat(65)), tooLong).allowed).toEqual(['invalid', 'failure']);
    expect(m.expectDelete(undefined, missing).allowed).toEqual(['invalid']);
  });

  it('a filtered list must show exactly the entries matching the filter', () => {
    const m = users();
    for (const n of ['r-a', 'r-b']) m.applyCreate(u(n), shownOf(FAMILIES.users.family, { is_superuser: false }), 'ok');
    const filter = (i: { username: string }) => i.username.includes('r-a');
    expect(m.reconcile([userRow('r-a')], filter as never)).toEqual([]);
    expect(m.reconcile([userRow('r-a'), userRow('r-b')], filter as never)[0]).toContain('does not match the query');
    expect(m.reconcile([userRow('r-a'), userRow('r-a')], all)[0]).toContain('listed twice');
  });
});

describe('reference model: tenants', () => {
  const row = (desc: unknown, config: Record<string, unknown>) => ({ tenant_name: 'pn-a', desc, config, create_time: 1 });

  it('quota fields left out show the spec defaults; an omitted desc may show as "", null or nothing', () => {
    const m = tenants();
    m.applyCreate({ tenant_name: 'pn-a' }, shownOf(FAMILIES.tenants.family, { tenant_name: 'pn-a', config: { max_topics: 7 } }), 'ok');
    for (const desc of ['', null, undefined]) {
      const copy = tenants();
      copy.applyCreate({ tenant_name: 'pn-a' }, shownOf(FAMILIES.tenants.family, { tenant_name: 'pn-a', config: { max_topics: 7 } }), 'ok');
      expect(copy.reconcile([row(desc, { ...QUOTA_DEFAULTS, max_topics: 7 })], all)).toEqual([]);
    }
    expect(m.reconcile([row('', { ...QUOTA_DEFAULTS, max_topics: 7, max_sessions: 1 })], all)).toEqual([
      '{"tenant_name":"pn-a"} shows config.max_sessions is 1, expected 50000000',
    ]);
  });

  it('an update of an unknown tenant must fail with code 1 (or 100) and a text that it was not found', () => {
    expect(tenants().expectUpdate({ tenant_name: 'pn-a' }, undefined)).toMatchObject({
      allowed: ['failure'],
      codes: [1, 100],
      textIncludes: { text: 'not found' },
    });
  });

  it('an update keeps or clears an omitted desc, and merges a partial config into the stored quota or the defaults', () => {
    const stored = { ...QUOTA_DEFAULTS, max_topics: 7 };
    const outcomes = [
      [row('old', { ...stored, max_sessions: 3 }), true],
      [row('', { ...stored, max_sessions: 3 }), true],
      [row('old', { ...QUOTA_DEFAULTS, max_sessions: 3 }), true],
      [row('old', stored), false],
    ] as const;
    for (const [r, ok] of outcomes) {
      const m = tenants();
      m.applyCreate({ tenant_name: 'pn-a' }, shownOf(FAMILIES.tenants.family, { desc: 'old', config: { max_topics: 7 } }), 'ok');
      expect(m.expectUpdate({ tenant_name: 'pn-a' }, undefined).allowed).toEqual(['ok']);
      m.applyUpdate({ tenant_name: 'pn-a' }, { tenant_name: 'pn-a', config: { max_sessions: 3 } }, 'ok');
      expect(m.reconcile([r], all).length === 0).toBe(ok);
    }
  });

  it('an update with a new desc must show it', () => {
    const m = tenants();
    m.applyCreate({ tenant_name: 'pn-a' }, shownOf(FAMILIES.tenants.family, { desc: 'old' }), 'ok');
    m.applyUpdate({ tenant_name: 'pn-a' }, { tenant_name: 'pn-a', desc: 'new' }, 'ok');
    expect(m.reconcile([row('old', QUOTA_DEFAULTS)], all)).toHaveLength(1);
    expect(m.entries.get(m.key({ tenant_name: 'pn-a' }))?.candidates[0].desc).toBe('old'); // follows the target after the report
    const again = tenants();
    again.applyCreate({ tenant_name: 'pn-a' }, shownOf(FAMILIES.tenants.family, { desc: 'old' }), 'ok');
    again.applyUpdate({ tenant_name: 'pn-a' }, { tenant_name: 'pn-a', desc: 'new' }, 'ok');
    expect(again.reconcile([row('new', QUOTA_DEFAULTS)], all)).toEqual([]);
  });

  it('shows OMITTED for a desc given empty', () => {
    expect(shownOf(FAMILIES.tenants.family, { desc: '' }).desc).toBe(OMITTED);
  });
});

describe('reference model: schema bindings', () => {
  const schemaIdent = { tenant: 'T', schema_name: 's' };
  const make = () => {
    const schemas = new FamilyModel(FAMILIES.schemas.family, FAMILIES.schemas.endpoints);
    const b = new BindingModel(schemas);
    schemas.applyCreate(schemaIdent, shownOf(FAMILIES.schemas.family, { schema_type: 'json', desc: 'd' }), 'ok');
    return { schemas, b };
  };

  it('binding an existing schema must succeed and be listed; unbinding must remove it', () => {
    const { b } = make();
    expect(b.expectBind('T', 's', 'res', undefined).allowed).toEqual(['ok']);
    b.applyBind('s', 'res', 'ok');
    expect(b.reconcile('s', [])).toEqual(['res was bound to s and not unbound, but the list does not show it']);
    b.applyBind('s', 'res', 'ok');
    expect(b.expectUnbind('s', 'res', undefined).allowed).toEqual(['ok']);
    b.applyUnbind('s', 'res', 'ok');
    expect(b.reconcile('s', ['res'])[0]).toContain('never bound it');
  });

  it('binding a schema that does not exist, and deleting a schema with bindings, are open', () => {
    const { schemas, b } = make();
    expect(b.expectBind('T', 'other', 'res', undefined).allowed).toEqual(['ok', 'invalid', 'failure']);
    b.applyBind('s', 'res', 'ok');
    expect(schemas.expectDelete(schemaIdent, undefined).allowed).toEqual(['ok', 'invalid', 'failure']);
    schemas.applyDelete(schemaIdent, 'ok');
    // The bindings may have gone with the schema or stayed.
    expect(b.reconcile('s', [])).toEqual([]);
  });
});
