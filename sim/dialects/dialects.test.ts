import { describe, expect, it } from 'vitest';
import { DEVIATIONS, deviationById } from '../switches/catalogue.ts';
import { DIALECTS, dialectHelp, switchesOf } from './dialects.ts';

describe('dialects', () => {
  it('spec is the unbroken simulator', () => {
    expect(DIALECTS.spec.switches).toEqual([]);
    expect(DIALECTS.spec.envelope).toBe('A');
  });

  it('robustmq: every switch is a catalogued real-server behaviour traced to the notes, once', () => {
    const { switches } = DIALECTS.robustmq;
    expect(new Set(switches).size).toBe(switches.length);
    for (const id of switches) {
      const d = deviationById(id);
      expect(d, id).toBeDefined();
      expect(d!.notes, `${id} is traced to the notes`).toMatch(/^notes §/);
    }
  });

  it('robustmq: accounts for every real-server switch of the catalogue (in the dialect, narrower than one in it, or omitted with a reason)', () => {
    const { switches, narrower = {}, omitted } = DIALECTS.robustmq;
    const omittedIds = omitted.flatMap((o) => [...o.behaviour.matchAll(/switch ([a-z0-9-]+)/g)].map((m) => m[1]));
    for (const d of DEVIATIONS.filter((x) => x.notes !== undefined)) {
      const where = switches.includes(d.id) ? 'in' : narrower[d.id] ? 'narrower' : omittedIds.includes(d.id) ? 'omitted' : 'unaccounted';
      expect(where, d.id).not.toBe('unaccounted');
      if (where === 'narrower') expect(switches, `${d.id} is narrower than ${narrower[d.id]}`).toContain(narrower[d.id]);
    }
    for (const o of omitted) expect(o.why.length, o.behaviour).toBeGreaterThan(30);
  });

  it("adds --deviation switches after the dialect's, without repeats", () => {
    expect(switchesOf('spec', ['a', 'b', 'a'])).toEqual(['a', 'b']);
    const all = switchesOf('robustmq', ['default-page-size-10', 'topic-list-limit-ignored']);
    expect(all.filter((id) => id === 'default-page-size-10')).toHaveLength(1);
    expect(all.at(-1)).toBe('topic-list-limit-ignored');
  });

  it('help lists every switch with its standing and notes', () => {
    const help = dialectHelp('robustmq');
    for (const id of DIALECTS.robustmq.switches) expect(help).toContain(id);
    expect(help).toMatch(/failure-code-100 +\[spec allows, notes §11\.1/);
  });
});
