/** Small building blocks the catalogued deviations are written with. */
import { CONTRACT } from '../../../contract/index.ts';
import type { EndpointContract, ParamSpec } from '../../../contract/core/types.ts';
import type { ApiResponse } from '../core/api-exchange.ts';
import type { DeviationContext, DeviationHooks } from './deviation.ts';

type Row = Record<string, unknown>;
type Around = NonNullable<DeviationHooks['around']>;
type Validation = NonNullable<DeviationHooks['validation']>;

/** The contract endpoint with this id; a typo in the catalogue fails at load time, not in a run. */
export function endpointById(id: string): EndpointContract {
  const e = CONTRACT.find((x) => x.id === id);
  if (!e) throw new Error(`deviation names unknown contract endpoint ${id}`);
  return e;
}

/** An `around` hook that acts on one endpoint and passes every other one through. */
export function aroundOn(endpointId: string, fn: Around): Around {
  endpointById(endpointId);
  return (params, next, cx) => (cx.endpoint.id === endpointId ? fn(params, next, cx) : next(params));
}

/** A `validation` hook that acts on one endpoint. */
export function validationOn(endpointId: string, fn: Validation): Validation {
  endpointById(endpointId);
  return (input, cx) => (cx.endpoint.id === endpointId ? fn(input, cx) : input);
}

/** A `response` hook that acts on the answers of one path. */
export function responseOn(endpointId: string, fn: (res: ApiResponse) => ApiResponse): NonNullable<DeviationHooks['response']> {
  const path = endpointById(endpointId).path;
  return (res, p) => (p === path ? fn(res) : res);
}

/** Rewrites the rows of a list page (after paging), e.g. to drop or retype a field. */
export function rowsOn(endpointId: string, fn: (row: Row, cx: DeviationContext) => Row): Around {
  return aroundOn(endpointId, async (params, next, cx) => {
    const page = (await next(params)) as { data: Row[]; total_count: number };
    return { ...page, data: page.data.map((r) => fn({ ...r }, cx)) };
  });
}

/** The endpoint's contract with one parameter spec replaced (a server configured differently). */
export function withParam(e: EndpointContract, name: string, change: (p: ParamSpec) => ParamSpec): EndpointContract {
  return { ...e, params: e.params.map((p) => (p.name === name ? change(p) : p)) };
}

/** The specs with one parameter's spec replaced. */
export function changeSpec(specs: readonly ParamSpec[], name: string, change: (p: ParamSpec) => ParamSpec): readonly ParamSpec[] {
  if (!specs.some((p) => p.name === name)) throw new Error(`no parameter ${name} to change`);
  return specs.map((p) => (p.name === name ? change(p) : p));
}

/** Rewrites the JSON body of an answer; answers that are not JSON objects pass unchanged. */
export function rewriteJson(res: ApiResponse, fn: (body: Row, status: number) => Row): ApiResponse {
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return res;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return res;
  return { ...res, body: JSON.stringify(fn(body as Row, res.status)) };
}

/** Answers `success` without calling the handler: a write the server acknowledges but drops. */
export function dropWrite(endpointId: string): Around {
  return aroundOn(endpointId, async () => 'success');
}
