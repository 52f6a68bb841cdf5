import { beforeAll, describe, expect, it } from 'vitest';
import { operationFailure } from '../../contract/core/common.ts';
import { API } from '../../contract/index.ts';
import { obj, str, strEnum, successText } from '../../contract/core/schema-builders.ts';
import type { ApiContract, EndpointContract, ParamSpec, ResourceFamilyContract } from '../../contract/core/types.ts';
import { failed } from '../../sim/model/errors/operation-error.ts';
import { handlersFor, type HandlerTable } from '../../sim/admin-api/core/handler-types.ts';
import { HANDLERS } from '../../sim/admin-api/handlers/index.ts';
import type { CheckRecord, Report } from '../../suites/conform/report-model.ts';
import { runConform } from '../../suites/run/runner.ts';
import { SCENARIO_SUITES } from '../../suites/scenarios/index.ts';
import { SimTarget } from '../../suites/targets/sim-target.ts';
import { runOpenapiCommand } from '../cli/openapi-command.ts';
import { missingParts } from './completeness.ts';

/**
 * The walk-through of CONTRIBUTING.md, proven: a throwaway resource family, `widgets`, defined only
 * in this file — three contract entries, a family entry, a small model and its handlers. Nothing
 * else is edited, yet the simulator serves it, the conformance suites check it (the generic checks,
 * the family checks and the property suites' reference model), the OpenAPI export carries it, and a
 * broken widget list is found.
 */

// ---- 1. The contract entries: one per endpoint -----------------------------------------------

const tenant = {
  name: 'tenant',
  type: 'string',
  required: true,
  minLength: 1,
  maxLength: 64,
  description: 'tenant',
} as const satisfies ParamSpec;
const name = {
  name: 'name',
  type: 'string',
  required: true,
  minLength: 1,
  maxLength: 32,
  description: 'widget name',
} as const satisfies ParamSpec;
const COLORS = ['red', 'green', 'blue'];

const widgetEndpoints = [
  {
    id: 'widgets.widget.list',
    method: 'GET',
    path: '/api/widgets/list',
    summary: 'list widgets',
    tag: 'widgets',
    auth: 'token',
    specTable: 'path-only',
    params: [
      { name: 'tenant', type: 'string', match: 'exact', description: 'only this tenant' },
      { name: 'name', type: 'string', match: 'fuzzy', description: 'contains match on the widget name' },
    ],
    list: { defaultLimit: 10_000, sortFields: ['name', 'tenant'] },
    response: {
      kind: 'envelope',
      data: obj({ tenant: str(), name: str(), color: strEnum(COLORS), desc: str() }, ['desc']),
      source: 'decision',
    },
    errors: [],
  },
  {
    id: 'widgets.widget.create',
    method: 'POST',
    path: '/api/widgets/create',
    writeClass: 'metadata',
    summary: 'create a widget',
    tag: 'widgets',
    auth: 'token',
    specTable: 'path-only',
    params: [
      tenant,
      name,
      { name: 'color', type: 'string', required: true, enum: COLORS, description: 'colour' },
      { name: 'desc', type: 'string', maxLength: 100, description: 'description' },
    ],
    response: { kind: 'envelope', data: successText, source: 'decision' },
    errors: [operationFailure('widget-exists', 'a widget of this name exists in the tenant', 'already exists', 'INFO', 'decision')],
  },
  {
    id: 'widgets.widget.delete',
    method: 'POST',
    path: '/api/widgets/delete',
    writeClass: 'metadata',
    summary: 'delete a widget',
    tag: 'widgets',
    auth: 'token',
    specTable: 'path-only',
    params: [tenant, name],
    response: { kind: 'envelope', data: successText, source: 'decision' },
    errors: [operationFailure('widget-not-found', 'no widget of this name in the tenant', 'does not exist', 'INFO', 'decision')],
  },
] as const satisfies readonly EndpointContract[];

// ---- 2. The family entry -----------------------------------------------------------------------

const widget: ResourceFamilyContract = {
  key: 'widget',
  endpoints: { create: 'widgets.widget.create', delete: 'widgets.widget.delete', list: 'widgets.widget.list' },
  identity: ['tenant', 'name'],
  scopeParam: 'tenant',
  nameParam: 'name',
  listing: {
    nameField: 'name',
    tenantField: 'tenant',
    tenantQuery: 'tenant',
    nameQuery: 'name',
    shows: [{ param: 'color' }, { param: 'desc' }],
  },
  dependsOn: ['tenant'],
  manages: 'service.manage',
  fixture: { stem: 'w', fields: (n, s) => ({ tenant: n.tenant, name: `conform-widget${s}`, color: 'red', desc: 'a widget' }) },
};

/** The built-in API with widgets: what a contributor's edit of contract would give. */
const WIDGET_API: ApiContract = { endpoints: [...API.endpoints, ...widgetEndpoints], families: [...API.families, widget] };

// ---- 3. The model and the handlers --------------------------------------------------------------

interface Widget {
  tenant: string;
  name: string;
  color: string;
  desc: string;
}

/** The widgets of a cluster: unique by (tenant, name). */
class WidgetShelf {
  private readonly widgets = new Map<string, Widget>();

  create(w: Widget): void {
    const key = `${w.tenant}/${w.name}`;
    if (this.widgets.has(key)) throw failed(`widget ${w.name} already exists in tenant ${w.tenant}`);
    this.widgets.set(key, w);
  }

  delete(tenant: string, name: string): void {
    if (!this.widgets.delete(`${tenant}/${name}`)) throw failed(`widget ${name} does not exist in tenant ${tenant}`);
  }

  all(): Widget[] {
    return [...this.widgets.values()].map((w) => ({ ...w }));
  }
}

/** The handlers of the three endpoints; `forgetful` lists nothing, whatever was created (a bug to find). */
function widgetHandlers(shelf: WidgetShelf, forgetful = false): HandlerTable {
  return handlersFor(widgetEndpoints, {
    'widgets.widget.list': () => (forgetful ? [] : shelf.all()),
    'widgets.widget.create': ({ params }) => {
      shelf.create({ tenant: params.tenant, name: params.name, color: params.color, desc: params.desc ?? '' });
      return 'success';
    },
    'widgets.widget.delete': ({ params }) => {
      shelf.delete(params.tenant, params.name);
      return 'success';
    },
  });
}

// ---- The proof ----------------------------------------------------------------------------------

const checksOf = (report: Report, id: string): CheckRecord[] => report.endpoints.find((e) => e.id === id)?.checks ?? [];
const statusOf = (report: Report, endpointId: string, checkId: string) =>
  checksOf(report, endpointId).find((c) => c.id === checkId)?.status;

async function conformWidgets(forgetful: boolean): Promise<Report> {
  const target = await SimTarget.start({
    seed: 5,
    workload: 'none',
    api: { endpoints: WIDGET_API.endpoints, handlers: { ...HANDLERS, ...widgetHandlers(new WidgetShelf(), forgetful) } },
  });
  try {
    return await runConform({ target, seed: 5, api: WIDGET_API, only: ['widgets'], propertyRuns: 10 });
  } finally {
    await target.close();
  }
}

describe('a throwaway family defined only in this file', () => {
  let report: Report;
  let broken: Report;
  beforeAll(async () => {
    [report, broken] = await Promise.all([conformWidgets(false), conformWidgets(true)]);
  }, 120_000);

  it('lacks no derived part (with an empty scenario suite for its tag: the generic and family checks cover it)', () => {
    const suites = [...SCENARIO_SUITES, { name: 'widgets', tags: ['widgets'], scenarios: [] }];
    const served = { api: WIDGET_API, handlers: { ...HANDLERS, ...widgetHandlers(new WidgetShelf()) } };
    expect(missingParts({ ...served, scenarioSuites: suites })).toEqual([]);
    // Without its handlers the server could not answer it: the check says so.
    expect(missingParts({ ...served, handlers: HANDLERS, scenarioSuites: suites })).toContain(
      'endpoint widgets.widget.create: no handler (sim/admin-api/handlers/<module>.ts)',
    );
  });

  it('is served and checked: its endpoints are in the report, every check passing or honestly skipped, none failing', () => {
    expect(report.endpoints.map((e) => e.id)).toEqual(['widgets.widget.list', 'widgets.widget.create', 'widgets.widget.delete']);
    const failing = report.endpoints.flatMap((e) =>
      e.checks.filter((c) => c.status === 'fail').map((c) => `${e.id} ${c.id}: ${c.message}`),
    );
    expect(failing).toEqual([]);
    expect(report.findings).toEqual([]);
    for (const e of report.endpoints) expect(e.checks.filter((c) => c.status === 'pass').length, e.id).toBeGreaterThan(5);
  });

  it('gets the family checks: the fixture read back from the list, a delete gone from it, the length limits', () => {
    expect(statusOf(report, 'widgets.widget.list', 'list.shows-created')).toBe('pass');
    expect(statusOf(report, 'widgets.widget.list', 'list.created-values')).toBe('pass');
    expect(statusOf(report, 'widgets.widget.delete', 'delete.gone-from-list')).toBe('pass');
    for (const n of [1, 32, 33]) expect(statusOf(report, 'widgets.widget.create', `limit.name.length-${n}`), `length ${n}`).toBe('pass');
    expect(statusOf(report, 'widgets.widget.create', 'limit.desc.length-101')).toBe('pass');
    expect(checksOf(report, 'widgets.widget.create').filter((c) => c.id.startsWith('enum.color')).length).toBeGreaterThan(1);
    expect(report.notes.filter((n) => n.includes('widget'))).toEqual([]);
  });

  it('gets the property suites: a reference-model run of its own and generated requests', () => {
    expect(statusOf(report, 'widgets.widget.create', 'property.model.widgets')).toBe('pass');
    expect(statusOf(report, 'widgets.widget.list', 'property.model.widgets')).toBe('pass');
    expect(statusOf(report, 'widgets.widget.create', 'property.requests')).toBe('pass');
  });

  it('is in the OpenAPI export', () => {
    let text = '';
    runOpenapiCommand({}, (t) => (text += t), WIDGET_API);
    const doc = JSON.parse(text) as { paths: Record<string, Record<string, { operationId?: string }>> };
    expect(Object.keys(doc.paths['/api/widgets/create'] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/widgets/list'] ?? {})).toEqual(['get']);
    expect(Object.keys(doc.paths['/api/widgets/delete'] ?? {})).toEqual(['post']);
  });

  it('a widget list that forgets what was created is a finding on the widget list', () => {
    expect(statusOf(broken, 'widgets.widget.list', 'list.shows-created')).toBe('fail');
    const onList = broken.findings.filter((f) => f.endpoints.includes('GET /api/widgets/list'));
    expect(onList.map((f) => f.assertion)).toContain('service.manage');
    expect(broken.verdict).toBe('fail');
  });
});
