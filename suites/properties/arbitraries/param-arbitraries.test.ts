import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API, CONTRACT } from '../../../contract/index.ts';
import type { ParamSpec } from '../../../contract/core/types.ts';
import { modelledFamilies } from '../reference-model/families.ts';
import { applyMutation, integerRange, mutationsOf } from './param-arbitraries.ts';
import { mutationsFor, validParams } from './family-requests.ts';
import { resolveParams, Sym } from './symbols.ts';

/** The contract's rules, checked independently of the generators: the paths of every broken rule. */
function broken(specs: readonly ParamSpec[], params: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const p of specs) {
    const path = `${prefix}${p.name}`;
    const v = params[p.name];
    if (v === undefined || v === null) {
      if (p.required) out.push(path);
      continue;
    }
    const range = integerRange(p);
    if (p.type === 'string') {
      if (typeof v !== 'string') out.push(path);
      else {
        const n = [...v].length;
        if (
          (p.minLength !== undefined && n < p.minLength) ||
          (p.maxLength !== undefined && n > p.maxLength) ||
          (p.enum && !p.enum.includes(v))
        )
          out.push(path);
      }
    } else if (range) {
      const num = typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
      if (typeof num !== 'number' || !Number.isInteger(num) || num < range[0] || num > range[1] || (p.enum && !p.enum.includes(num)))
        out.push(path);
    } else if (p.type === 'bool') {
      if (typeof v !== 'boolean') out.push(path);
    } else if (p.type === 'object') {
      if (typeof v !== 'object' || Array.isArray(v)) out.push(path);
      else if (p.properties) out.push(...broken(p.properties, v as Record<string, unknown>, `${path}.`));
    }
  }
  return out;
}

const scope = { tenant: 'pt1-x', prefix: 'r1-' };
const MODELLED = modelledFamilies(API);
const users = MODELLED.find((m) => m.tag === 'users')!;

describe('requests generated from the contract', () => {
  for (const { family, endpoints: eps } of MODELLED) {
    for (const e of [eps.create, eps.delete, ...(eps.update ? [eps.update] : [])]) {
      it(`${e.id}: valid requests satisfy every ParamSpec; each mutation breaks exactly its own rule`, () => {
        fc.assert(
          fc.property(validParams(family, e), (params) => {
            expect(broken(e.params, resolveParams(params, scope))).toEqual([]);
          }),
          { seed: 1, numRuns: 60 },
        );
        const ms = mutationsFor(family, e);
        expect(ms.length).toBeGreaterThan(0);
        const base = fc.sample(validParams(family, e), { seed: 2, numRuns: 1 })[0];
        for (const m of ms) {
          const mutated = resolveParams(applyMutation(base, m), scope);
          // Rules beyond the ParamSpecs (a pair's refused values: catalogue type, config JSON) are not visible to this checker.
          const extra = (family.pairs ?? []).some(
            (p) => p.kind === 'examples' && p.refused !== undefined && m.path in p.refused && p.refused[m.path] === m.value,
          );
          expect(broken(e.params, mutated)).toEqual(extra ? [] : [m.path]);
        }
      });
    }
  }

  it('every kind of rule has a mutation somewhere: missing, lengths, type, range, integer, enum', () => {
    const kinds = new Set(MODELLED.flatMap((m) => mutationsFor(m.family, m.endpoints.create).map((x) => x.rule)));
    expect([...kinds].sort()).toEqual([
      'above-maximum',
      'bad-enum',
      'below-minimum',
      'missing',
      'not-integer',
      'too-long',
      'too-short',
      'wrong-type',
    ]);
  });

  it('too-long names stay under the run prefix, so a server that wrongly accepts one only ever holds names of the run', () => {
    const m = mutationsFor(users.family, users.endpoints.create).find((x) => x.path === 'username' && x.rule === 'too-long')!;
    expect(m.value).toBeInstanceOf(Sym);
    const name = (m.value as Sym).resolve(scope);
    expect(name.startsWith('r1-')).toBe(true);
    expect([...name]).toHaveLength(65);
  });

  it('query mutations of a list endpoint are texts (a query carries text)', () => {
    const e = CONTRACT.find((x) => x.id === 'cluster.user.list')!;
    const ms = mutationsOf(
      [
        { name: 'limit', type: 'u32', description: '' },
        { name: 'sort_by', type: 'string', enum: ['asc', 'desc'], description: '' },
      ],
      'query',
      { cites: () => ({ assertion: 'list-params.limit', namingAssertion: 'errors.case.rejected-body' }) },
    );
    expect(ms.map((m) => [m.path, m.rule, m.value])).toEqual([
      ['limit', 'wrong-type', 'abc'],
      ['limit', 'below-minimum', '-1'],
      ['limit', 'above-maximum', '4294967296'],
      ['limit', 'not-integer', '0.5'],
      ['sort_by', 'bad-enum', 'Bogus-value'],
    ]);
    expect(e).toBeDefined();
  });
});
