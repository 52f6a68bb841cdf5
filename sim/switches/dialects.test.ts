import { describe, expect, it } from 'vitest';
import { deviationById } from './catalogue.ts';
import { DIALECTS, dialectHelp, switchesOf, unaccountedSwitches } from './dialects.ts';

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
    expect(unaccountedSwitches(DIALECTS.robustmq)).toEqual([]);
    const { narrower = {}, omitted } = DIALECTS.robustmq;
    for (const [id, broader] of Object.entries(narrower)) {
      expect(deviationById(id), id).toBeDefined();
      expect(DIALECTS.robustmq.switches, `${id} is narrower than ${broader}`).toContain(broader);
    }
    for (const o of omitted) expect(o.why.length, o.behaviour).toBeGreaterThan(30);
    // A switch taken out of the dialect is reported, so a new one cannot be forgotten.
    const without = { ...DIALECTS.robustmq, switches: DIALECTS.robustmq.switches.filter((id) => id !== 'failure-code-100') };
    expect(unaccountedSwitches(without)).toEqual(['failure-code-100']);
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
