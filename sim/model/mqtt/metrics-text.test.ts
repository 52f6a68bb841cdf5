import { describe, expect, it } from 'vitest';
import { parsePrometheusText, PrometheusText } from './metrics-text.ts';

describe('Prometheus text exposition', () => {
  it('writes HELP, TYPE and escaped labels that parse back', () => {
    const text = new PrometheusText()
      .family('a_total', 'counter', 'a counter\nwith two lines')
      .sample('a_total', 3, { tenant: 'we"ird\\one', node: 2 })
      .family('b', 'gauge', 'a gauge')
      .sample('b', 0.5)
      .toString();
    expect(text).toBe(
      '# HELP a_total a counter\\nwith two lines\n# TYPE a_total counter\na_total{tenant="we\\"ird\\\\one",node="2"} 3\n# HELP b a gauge\n# TYPE b gauge\nb 0.5\n',
    );
    const parsed = parsePrometheusText(text);
    expect(parsed.types).toEqual(
      new Map([
        ['a_total', 'counter'],
        ['b', 'gauge'],
      ]),
    );
    expect(parsed.samples).toEqual([
      { name: 'a_total', labels: { tenant: 'we"ird\\one', node: '2' }, value: 3 },
      { name: 'b', labels: {}, value: 0.5 },
    ]);
  });

  it('refuses undeclared or doubly declared metrics and rejects malformed text', () => {
    expect(() => new PrometheusText().sample('x', 1)).toThrow(/undeclared/);
    expect(() => new PrometheusText().family('x', 'gauge', '').family('x', 'gauge', '')).toThrow(/twice/);
    expect(() => parsePrometheusText('x 1\n')).toThrow(/TYPE/);
    expect(() => parsePrometheusText('# TYPE x gauge\nx{a=1} 1\n')).toThrow(/labels/);
  });
});
