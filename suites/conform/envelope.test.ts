import { describe, expect, it } from 'vitest';
import { envelopeProblems, namesParam, readEnvelope } from './envelope.ts';

describe('readEnvelope', () => {
  it('reads both forms', () => {
    expect(readEnvelope({ code: 0, message: 'success', data: 1 }, '')).toEqual({
      ok: true,
      envelope: { form: 'A', code: 0, text: 'success', data: 1 },
    });
    expect(readEnvelope({ code: 100, data: '', error: 'boom' }, '')).toEqual({
      ok: true,
      envelope: { form: 'B', code: 100, text: 'boom', data: '' },
    });
  });

  it('says what is wrong with a body that is no envelope', () => {
    expect(readEnvelope(undefined, '')).toMatchObject({ ok: false, problem: expect.stringContaining('empty body') });
    expect(readEnvelope(undefined, '<html>')).toMatchObject({ ok: false, problem: expect.stringContaining('not JSON') });
    expect(readEnvelope([1], '[1]')).toMatchObject({ ok: false, problem: expect.stringContaining('not an object') });
    expect(readEnvelope({ code: '0', data: 1, message: 'x' }, '')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('integer "code"'),
    });
    expect(readEnvelope({ code: 0, message: 'success' }, '')).toMatchObject({ ok: false, problem: expect.stringContaining('"data"') });
    expect(readEnvelope({ code: 0, data: 1 }, '')).toMatchObject({ ok: false, problem: expect.stringContaining('neither') });
  });
});

describe('envelopeProblems', () => {
  it('accepts sound successes and failures of both forms', () => {
    expect(envelopeProblems({ code: 0, message: 'success', data: [] })).toEqual([]);
    expect(envelopeProblems({ code: 0, data: 'success', error: null })).toEqual([]);
    expect(envelopeProblems({ code: 1, message: 'Tenant x not found', data: null })).toEqual([]);
    expect(envelopeProblems({ code: 100, data: '', error: 'failed' })).toEqual([]);
    expect(envelopeProblems({ code: 401, message: 'Invalid username or password', data: null })).toEqual([]);
  });

  it('names each broken rule', () => {
    expect(envelopeProblems({ code: 0, message: 'ok', data: 1 })[0]).toMatch(/message "success"/);
    expect(envelopeProblems({ code: 0, data: 1, error: 'x' })[0]).toMatch(/error null/);
    expect(envelopeProblems({ code: 1, message: '', data: null })[0]).toMatch(/no text/);
    expect(envelopeProblems({ code: 1, message: 'bad', data: { x: 1 } })[0]).toMatch(/data null or ""/);
    expect(envelopeProblems(undefined, 'Internal Server Error')[0]).toMatch(/not JSON/);
  });
});

describe('namesParam', () => {
  it('finds a parameter named in the usual ways', () => {
    expect(namesParam("invalid parameter 'tenant_name': must not be empty", 'tenant_name')).toBe(true);
    expect(namesParam('Tenant name length must be between 1-128', 'tenant_name')).toBe(true);
    expect(namesParam('Connector type must be kafka, …', 'connector_type')).toBe(true);
    expect(namesParam('invalid parameter config.local_file_path', 'config.local_file_path')).toBe(true);
  });

  it('does not match a longer word or another parameter', () => {
    expect(namesParam('invalid parameter tenants_total', 'tenant')).toBe(false);
    expect(namesParam('invalid parameter name', 'tenant')).toBe(false);
    expect(namesParam(null, 'tenant')).toBe(false);
  });
});
