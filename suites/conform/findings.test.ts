import { describe, expect, it } from 'vitest';
import { check, endpoint, reportOf } from '../report/sample-report.ts';
import { buildFindings, kindOf } from './findings.ts';

/** Failed checks of sample endpoints, grouped as the report does. */
const findingsOf = (...eps: ReturnType<typeof endpoint>[]) => reportOf(eps).findings;

describe('findings: failed checks grouped by cause', () => {
  it('one broken assertion across endpoints is one finding, MUST first, with its citation and an example', () => {
    const f = findingsOf(
      endpoint(
        'GET',
        '/api/cluster/user/list',
        'users',
        [
          check('list.total-count', 'fail', 'MUST', {
            assertion: 'envelope.paged.total-count',
            request: { method: 'GET', path: '/api/cluster/user/list?limit=2' },
            curl: 'curl x',
          }),
        ],
        'cluster.user.list',
      ),
      endpoint(
        'GET',
        '/api/cluster/acl/list',
        'acl',
        [
          check('list.total-count', 'fail', 'MUST', { assertion: 'envelope.paged.total-count' }),
          check('wrong-method', 'fail', 'INFO', { assertion: 'decision.wrong-method-405' }),
        ],
        'cluster.acl.list',
      ),
    );
    expect(f.map((x) => `${x.level} ${x.id} ${x.endpoints.join(',')}`)).toEqual([
      'MUST envelope.paged.total-count GET /api/cluster/user/list,GET /api/cluster/acl/list',
      'INFO decision.wrong-method-405 GET /api/cluster/acl/list',
    ]);
    expect(f[0].citation?.quote).toBe('| total_count | number | total number of matching records |');
    expect(f[0].example).toMatchObject({ check: 'list.total-count', request: { path: '/api/cluster/user/list?limit=2' }, curl: 'curl x' });
  });

  it('everything an endpoint failed because it answered 5xx is one finding of that endpoint, whatever the checks cite', () => {
    const five = { cause: 'server-error' as const, causeEndpoint: 'cluster.schema.list' };
    const f = findingsOf(
      endpoint(
        'GET',
        '/api/cluster/schema/list',
        'schemas',
        [
          check('exists', 'fail', 'MUST', { assertion: 'endpoints.path-only.schema-lists', ...five }),
          check('required.tenant', 'fail', 'INFO', { assertion: 'notes.path-only.request', ...five }),
        ],
        'cluster.schema.list',
      ),
      endpoint(
        'POST',
        '/api/cluster/schema/delete',
        'schemas',
        [check('delete.gone-from-list', 'fail', 'MUST', { assertion: 'service.manage', ...five })],
        'cluster.schema.delete',
      ),
    );
    expect(f.map((x) => `${x.level} ${x.id} ${x.assertion} ${x.checks.length}`)).toEqual([
      'MUST server-error@cluster.schema.list endpoints.path-only.schema-lists 3',
    ]);
  });

  it('a route the server does not serve is one finding per row of the spec that lists it', () => {
    const gone = (id: string) => ({ cause: 'not-found' as const, causeEndpoint: id });
    const f = findingsOf(
      endpoint(
        'POST',
        '/api/mqtt/message/send',
        'offsets-messages',
        [
          check('exists', 'fail', 'MUST', { assertion: 'endpoints.path-only.messages', ...gone('mqtt.message.send') }),
          check('auth.no-token', 'fail', 'MUST', { assertion: 'auth.rule-5-401', ...gone('mqtt.message.send') }),
        ],
        'mqtt.message.send',
      ),
      endpoint(
        'POST',
        '/api/mqtt/message/read',
        'offsets-messages',
        [check('exists', 'fail', 'MUST', { assertion: 'endpoints.path-only.messages', ...gone('mqtt.message.read') })],
        'mqtt.message.read',
      ),
    );
    expect(f.map((x) => `${x.id} ${x.endpoints.length} ${x.checks.length}`)).toEqual(['endpoints.path-only.messages 2 3']);
    expect(f[0].title).toMatch(/is not served/);
  });

  it('folds the same kind of check under a weaker assertion into the stronger finding (a sort the spec lists and one it does not)', () => {
    const f = findingsOf(
      endpoint(
        'GET',
        '/api/cluster/acl/list',
        'acl',
        [
          check('list.sort.name', 'fail', 'MUST', { assertion: 'endpoints.acl.list.query' }),
          check('list.sort.tenant', 'fail', 'INFO', { assertion: 'decision.list.extra-sort-fields' }),
        ],
        'cluster.acl.list',
      ),
    );
    expect(f.map((x) => `${x.id} ${x.checks.length} ${(x.folded ?? []).join(',')}`)).toEqual([
      'endpoints.acl.list.query 2 decision.list.extra-sort-fields',
    ]);
    expect(kindOf('list.sort.name')).toBe(kindOf('list.sort.tenant'));
    expect(kindOf('data-schema')).not.toBe(kindOf('data-schema.field'));
  });

  it('folds a property failure under a finding of its family, and keeps one that stands alone', () => {
    const prop = (a: string) => check('property.model.users', 'fail', 'MUST', { assertion: a });
    const folded = findingsOf(
      endpoint(
        'GET',
        '/api/cluster/user/list',
        'users',
        [check('list.shows-created', 'fail', 'MUST', { assertion: 'service.manage' })],
        'cluster.user.list',
      ),
      endpoint('POST', '/api/cluster/user/create', 'users', [prop('endpoints.index.user-manage')], 'cluster.user.create'),
    );
    expect(folded.map((x) => `${x.id} ${x.endpoints.length} ${(x.folded ?? []).join(',')}`)).toEqual([
      'service.manage 2 endpoints.index.user-manage',
    ]);
    const alone = findingsOf(
      endpoint('POST', '/api/cluster/user/create', 'users', [prop('endpoints.index.user-manage')], 'cluster.user.create'),
    );
    expect(alone.map((x) => x.id)).toEqual(['endpoints.index.user-manage']);
  });

  it("keeps a list history's failure a finding of its own beside another finding of its family", () => {
    const f = findingsOf(
      endpoint(
        'GET',
        '/api/cluster/tenant/list',
        'tenants',
        [
          check('tenant.default-limit-100', 'fail', 'MUST', { assertion: 'limits.list-limit-default' }),
          check('property.history.lists', 'fail', 'MUST', { assertion: 'endpoints.tenant.list.query' }),
        ],
        'cluster.tenant.list',
      ),
    );
    expect(f.map((x) => x.id).sort()).toEqual(['endpoints.tenant.list.query', 'limits.list-limit-default']);
  });

  it('is a pure function of the checks: the same endpoints give the same findings', () => {
    const eps = [endpoint('GET', '/api/a', 'a', [check('x', 'fail', 'MUST', { assertion: 'envelope.forms' })])];
    const citations = reportOf(eps).citations;
    expect(buildFindings(eps, citations)).toEqual(buildFindings(eps, citations));
    expect(buildFindings([endpoint('GET', '/api/a', 'a', [check('x', 'pass')])], citations)).toEqual([]);
  });

  it('groups failures naming a rule by that rule across the assertions stating it, titled by what is wrong and where', () => {
    const rule = (kind: string, wrong: string, subject: string) => ({ rule: { id: `connector.config.${kind}`, wrong, subject } });
    const scheme = (t: string) => rule('url-scheme', 'connector configs: a URL without its scheme is accepted', t);
    const range = (t: string) => rule('range', 'connector configs: a number outside its range is accepted', t);
    const f = findingsOf(
      endpoint(
        'POST',
        '/api/cluster/connector/create',
        'connectors',
        [
          check('connector.config.kafka.batch_size-below-1', 'fail', 'MUST', { assertion: 'catalogue.kafka', ...range('kafka') }),
          check('connector.config.webhook.url-bad-scheme', 'fail', 'MUST', { assertion: 'catalogue.webhook', ...scheme('webhook') }),
          check('connector.config.webhook.timeout_ms-below-1', 'fail', 'MUST', { assertion: 'catalogue.webhook', ...range('webhook') }),
          check('connector.config.clickhouse.url-bad-scheme', 'fail', 'MUST', {
            assertion: 'catalogue.clickhouse',
            ...scheme('clickhouse'),
          }),
          check('connector.config.clickhouse.pool_size-above-64', 'fail', 'INFO', {
            assertion: 'decision.connector.unstated-ranges',
            ...range('clickhouse'),
          }),
          // No rule: grouped by its assertion, each decision its own finding (not one "connector.config" kind).
          check('connector.config.file-path-relative', 'fail', 'INFO', { assertion: 'decision.connector.file-path-absolute' }),
          check('connector.config.empty-required-strings', 'fail', 'INFO', { assertion: 'decision.connector.empty-required-strings' }),
        ],
        'cluster.connector.create',
      ),
    );
    expect(f.map((x) => `${x.level} ${x.id} ${x.checks.length} | ${x.title}`)).toEqual([
      'MUST connector.config.range 3 | connector configs: a number outside its range is accepted (kafka, webhook, clickhouse)',
      'MUST connector.config.url-scheme 2 | connector configs: a URL without its scheme is accepted (webhook, clickhouse)',
      expect.stringMatching(/^INFO decision\.connector\.empty-required-strings 1 \| /),
      expect.stringMatching(/^INFO decision\.connector\.file-path-absolute 1 \| /),
    ]);
    expect(f[0].assertions).toEqual(['catalogue.kafka', 'catalogue.webhook', 'decision.connector.unstated-ranges']);
    expect(f[0].assertion).toBe('catalogue.kafka');
    expect(f[0].folded).toBeUndefined();
  });

  it('folds a consequence under the finding of the check it rests on, on any endpoint, without raising its level', () => {
    const f = findingsOf(
      endpoint(
        'POST',
        '/api/cluster/config/set',
        'config',
        [
          check('config.set.MqttLimit.accepted', 'fail', 'INFO', { assertion: 'decision.config.partial' }),
          check('config.set-get-roundtrip', 'fail', 'MUST', {
            assertion: 'config.set.at-once',
            consequenceOf: { endpoint: 'cluster.config.set', check: 'config.set.MqttLimit.accepted' },
          }),
        ],
        'cluster.config.set',
      ),
      endpoint(
        'GET',
        '/api/cluster/config/get',
        'config',
        [
          check('config.read-back', 'fail', 'MUST', {
            assertion: 'config.set.read-percent',
            consequenceOf: { endpoint: 'cluster.config.set', check: 'config.set-get-roundtrip' },
          }),
        ],
        'cluster.config.get',
      ),
    );
    expect(
      f.map((x) => `${x.level} ${x.id} ${x.checks.map((c) => c.id).join(',')} ${x.endpoints.length} ${(x.folded ?? []).join(',')}`),
    ).toEqual([
      'INFO decision.config.partial config.set.MqttLimit.accepted,config.set-get-roundtrip,config.read-back 2 config.set.at-once,config.set.read-percent',
    ]);
    // A consequence whose cause did not fail (or is not in the report) stands on its own.
    const alone = findingsOf(
      endpoint(
        'POST',
        '/api/cluster/config/set',
        'config',
        [
          check('config.set-get-roundtrip', 'fail', 'MUST', {
            assertion: 'config.set.at-once',
            consequenceOf: { endpoint: 'cluster.config.set', check: 'happy-path' },
          }),
        ],
        'cluster.config.set',
      ),
    );
    expect(alone.map((x) => x.id)).toEqual(['config.set.at-once']);
  });

  it('marks an API-wide rule broken on many endpoints cross-cutting, and an endpoint rule or a rule on few endpoints not', () => {
    const wire = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        endpoint('GET', `/api/x${i}`, 'x', [check('content-type', 'fail', 'MUST', { assertion: 'conventions.wire-format' })], `x.${i}`),
      );
    expect(findingsOf(...wire(5)).map((x) => `${x.id} ${x.crossCutting ?? false}`)).toEqual(['conventions.wire-format true']);
    const few = [...wire(2), ...Array.from({ length: 8 }, (_, i) => endpoint('GET', `/api/y${i}`, 'y', [check('z', 'pass')], `y.${i}`))];
    expect(findingsOf(...few).map((x) => `${x.id} ${x.crossCutting ?? false}`)).toEqual(['conventions.wire-format false']);
    // A run of two endpoints, both broken: cross-cutting as well.
    expect(findingsOf(...wire(2)).map((x) => x.crossCutting)).toEqual([true]);
    const perList = Array.from({ length: 6 }, (_, i) =>
      endpoint(
        'GET',
        `/api/l${i}`,
        'l',
        [check('list.total-count', 'fail', 'MUST', { assertion: 'envelope.paged.total-count' })],
        `l.${i}`,
      ),
    );
    expect(findingsOf(...perList).map((x) => x.crossCutting)).toEqual([undefined]);
  });
});
