import { describe, expect, it } from 'vitest';
import { API, familyByKey } from '../../contract/index.ts';
import type { ApiContract, EndpointContract, ResourceFamilyContract } from '../../contract/core/types.ts';
import { HANDLERS } from '../../sim/admin-api/handlers/index.ts';
import { SCENARIO_SUITES } from '../../suites/scenarios/index.ts';
import { missingParts, type Implementation } from './completeness.ts';

const BUILT_IN: Implementation = { api: API, handlers: HANDLERS, scenarioSuites: SCENARIO_SUITES };

/** The built-in implementation with one endpoint replaced. */
function withEndpoint(id: string, change: (e: EndpointContract) => EndpointContract): Implementation {
  return { ...BUILT_IN, api: { ...API, endpoints: API.endpoints.map((e) => (e.id === id ? change(e) : e)) } };
}

/** The built-in implementation with one family replaced (or removed, when `change` answers undefined). */
function withFamily(key: string, change: (f: ResourceFamilyContract) => ResourceFamilyContract | undefined): Implementation {
  const families = API.families.flatMap((f) => (f.key === key ? [change(f)].filter((x) => x !== undefined) : [f]));
  return { ...BUILT_IN, api: { ...API, families } satisfies ApiContract };
}

describe('every endpoint and every resource family has each part derived from the contract', () => {
  it('the built-in API lacks none', () => {
    expect(missingParts(BUILT_IN)).toEqual([]);
  });

  describe('a copy missing one part is reported, naming it', () => {
    it('an endpoint without a handler', () => {
      const { ['cluster.acl.create']: _gone, ...handlers } = HANDLERS;
      expect(missingParts({ ...BUILT_IN, handlers })).toEqual([
        'endpoint cluster.acl.create: no handler (sim/admin-api/handlers/<module>.ts)',
      ]);
    });

    it('a POST without its write class', () => {
      const { writeClass: _gone, ...bare } = API.endpoints.find((e) => e.id === 'cluster.user.delete')!;
      expect(missingParts(withEndpoint('cluster.user.delete', () => bare))).toEqual([
        'endpoint cluster.user.delete: a POST without writeClass (metadata, metadata-self-checked or none)',
      ]);
    });

    it('a tag no scenario suite checks', () => {
      const suites = SCENARIO_SUITES.filter((s) => !s.tags.includes('blacklist'));
      expect(missingParts({ ...BUILT_IN, scenarioSuites: suites })).toEqual(
        ['cluster.blacklist.list', 'cluster.blacklist.create', 'cluster.blacklist.delete'].map(
          (id) => `endpoint ${id}: no scenario suite checks its tag blacklist`,
        ),
      );
    });

    it('a family whose fixture leaves out a required field', () => {
      const problems = missingParts(
        withFamily('acl', (f) => ({
          ...f,
          fixture: { ...f.fixture, fields: (n, s) => ({ ...f.fixture.fields(n, s), resource_name: undefined }) },
        })),
      );
      expect(problems).toContain('family acl: its fixture leaves out required resource_name');
    });

    it('a family the reference model does not cover, without saying why', () => {
      expect(missingParts(withFamily('shard', ({ unmodelled: _gone, ...f }) => f))).toEqual([
        'family shard: no reference-model entry, and no reason given (unmodelled)',
      ]);
    });

    it('a family with a listing and no reason not to is modelled at once: nothing is missing', () => {
      expect(missingParts(withFamily('topic', ({ unmodelled: _gone, ...f }) => f))).toEqual([]);
    });

    it('a binding family whose parent left the reference model', () => {
      const problems = missingParts(withFamily('schema', (f) => ({ ...f, unmodelled: 'test' })));
      expect(problems).toContain('family schema-bind: attaches to schema, which the reference model does not cover');
    });

    it('a family without a listing and without the reason', () => {
      expect(missingParts(withFamily('shard', ({ unlisted: _gone, ...f }) => f))).toEqual([
        'family shard: declares neither a listing nor why it has none',
      ]);
    });

    it('a visibility rule the chaos history cannot follow', () => {
      const problems = missingParts(
        withFamily('topic', (f) => ({
          ...f,
          visibility: [{ endpoint: 'cluster.tenant.list', effect: 'appears', nameParam: 'topic', why: 'test' }],
        })),
      );
      expect(problems).toContain('family topic: visibility rule on cluster.tenant.list reads topic, which it does not take');
    });

    it('a family naming an endpoint the contract does not have', () => {
      const problems = missingParts(withFamily('user', (f) => ({ ...f, endpoints: { ...f.endpoints, delete: 'cluster.user.remove' } })));
      expect(problems).toEqual(['family user: its delete endpoint cluster.user.remove is not in the contract']);
    });

    it('a list query parameter the list does not take', () => {
      const user = familyByKey('user');
      const problems = missingParts(withFamily('user', (f) => ({ ...f, listing: { ...user.listing!, nameQuery: 'username' } })));
      expect(problems).toEqual(['family user: list query parameter username is not a parameter of cluster.user.list']);
    });

    it('a family depending on one whose fixture comes later', () => {
      const problems = missingParts(withFamily('user', (f) => ({ ...f, dependsOn: ['topic'] })));
      expect(problems).toEqual(["family user: depends on topic, which comes after it (fixtures are made in the families' order)"]);
    });
  });
});
