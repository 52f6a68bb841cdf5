import { describe, expect, it } from 'vitest';
import { int, localTime, nullable, obj, str, uint, unixMillis, unixSeconds, arr, map } from '../../contract/core/schema-builders.ts';
import { collectTimeValues, hasTimeFields, timeProblem } from './data-validator.ts';

const schema = obj({
  create_time: unixSeconds(),
  mail: obj({ create_time: unixMillis() }),
  shown: localTime(),
  maybe: nullable(unixSeconds()),
  decided: uint('Unix seconds (decision: the spec does not give the form)'),
  empty_since: int('Unix seconds, -1 while empty'),
  rows: arr(obj({ at: unixSeconds() })),
  byKey: map(obj({ at: unixSeconds() })),
  name: str(),
});

describe('time forms', () => {
  it('finds every time value of an answer along its schema (null carries none), with its form and whether the form is decided', () => {
    const values = collectTimeValues(schema, {
      create_time: 1_767_225_600,
      mail: { create_time: 1_767_225_600_123 },
      shown: '2026-01-01 00:00:00',
      maybe: null,
      decided: 1_767_225_600,
      empty_since: -1,
      rows: [{ at: 1 }],
      byKey: { a: { at: 1_767_225_600 } },
      name: 'x',
    });
    expect(values.map((v) => [v.path, v.form, v.decision])).toEqual([
      ['.create_time', 'unix-seconds', false],
      ['.mail.create_time', 'unix-millis', false],
      ['.shown', 'local-time', false],
      ['.decided', 'unix-seconds', true],
      ['.empty_since', 'unix-seconds', false],
      ['.rows[0].at', 'unix-seconds', false],
      ['.byKey.a.at', 'unix-seconds', false],
    ]);
    expect(values.map(timeProblem).filter(Boolean)).toEqual(['.rows[0].at 1 is not plausible as unix-seconds']);
    expect(hasTimeFields(schema)).toBe(true);
    expect(hasTimeFields(obj({ name: str() }))).toBe(false);
  });

  it('names the likely mix-up: milliseconds for seconds, seconds for milliseconds, an impossible date', () => {
    const t = (form: 'unix-seconds' | 'unix-millis' | 'local-time', value: unknown) =>
      timeProblem({ path: '.t', form, value, decision: false, minusOneAllowed: false });
    expect(t('unix-seconds', 1_767_225_600_000)).toMatch(/milliseconds where seconds are due/);
    expect(t('unix-millis', 1_767_225_600)).toMatch(/seconds where milliseconds are due/);
    expect(t('local-time', '2026-02-30 10:00:00')).toMatch(/not a valid date/);
    expect(t('local-time', '2026-01-01T00:00:00Z')).toMatch(/not of the form/);
    expect(t('unix-seconds', 0)).toBeUndefined();
    expect(t('unix-seconds', -1)).toMatch(/not plausible/);
  });
});
