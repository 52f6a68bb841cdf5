import { describe, expect, it } from 'vitest';
import { REDACTED, redactReport, redactSecretKeys, secretValuesIn } from './redact.ts';

describe('secrets never leave through a report', () => {
  it('finds and replaces the values of secret keys in JSON text, even cut short', () => {
    const body =
      '{"code":0,"data":{"admin":{"username":"admin","password":"p4ss-w0rd!","jwt_secret":"robustmq-change-me-in-production"},"token":"eyJ';
    expect(secretValuesIn(body)).toEqual(['p4ss-w0rd!', 'robustmq-change-me-in-production']);
    expect(redactSecretKeys(body)).toBe(
      `{"code":0,"data":{"admin":{"username":"admin","password":"${REDACTED}","jwt_secret":"${REDACTED}"},"token":"eyJ`,
    );
  });

  it('replaces a secret seen in an answer wherever it is quoted, and the known ones, but not ids or a short common word', () => {
    const report = {
      endpoints: [
        {
          id: 'cluster.config.get',
          checks: [
            {
              id: 'config.secrets-not-shown',
              assertion: 'decision.secrets-hidden',
              message: 'shows robustmq-change-me-in-production',
              response: { body: '{"data":{"admin":{"jwt_secret":"robustmq-change-me-in-production","password":"admin"}}}' },
            },
            {
              id: 'login',
              assertion: 'auth.rule-4-login',
              message: 'logged in as admin with the given S3cret-Pass',
              curl: 'curl -d {"password":"S3cret-Pass"}',
            },
          ],
        },
      ],
      notes: ['the token eyJhbGciOi.abc.def was refused'],
    };
    const out = redactReport(report, { known: ['S3cret-Pass', 'eyJhbGciOi.abc.def'], keep: ['admin'] });
    const text = JSON.stringify(out);
    for (const secret of ['robustmq-change-me-in-production', 'S3cret-Pass', 'eyJhbGciOi.abc.def']) expect(text).not.toContain(secret);
    expect(out.endpoints[0].checks[0].id).toBe('config.secrets-not-shown');
    expect(out.endpoints[0].checks[1].message).toBe(`logged in as admin with the given ${REDACTED}`);
    // The short password "admin" equal to the user name is hidden where it is a value, not everywhere.
    expect(out.endpoints[0].checks[0].response?.body).toContain(`"password":"${REDACTED}"`);
    expect(text).toContain('logged in as admin');
    expect(report.endpoints[0].checks[1].message).toContain('S3cret-Pass'); // the input is left as it was
  });
});
