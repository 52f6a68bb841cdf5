import type { Cluster } from '../../model/cluster/cluster.ts';
import { failureEnvelope, type EnvelopeForm } from '../../admin-api/envelope.ts';
import { CONTROL_PREFIX, handleControl, isLoopbackPeer } from './control-api.ts';

export interface ControlHttpRequest {
  method: string;
  url: string;
  body: Buffer | string | undefined;
  peer: string;
}

export interface ControlHttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

const answer = (status: number, body: unknown): ControlHttpAnswer => ({ status, headers: { ...JSON_TYPE }, body: JSON.stringify(body) });

/**
 * The HTTP face of the control interface: requests under `/_sim/` from loopback peers go to
 * `handleControl` (others get 403); any other path is not ours (undefined). `syncClock` brings
 * virtual time up to wall time first in live mode, so an advance is counted from "now".
 */
export function controlHttpAnswer(
  cluster: Cluster,
  envelope: EnvelopeForm,
  syncClock: () => void,
  req: ControlHttpRequest,
): ControlHttpAnswer | undefined {
  if (!req.url.startsWith(CONTROL_PREFIX)) return undefined;
  if (!isLoopbackPeer(req.peer))
    return answer(403, failureEnvelope(envelope, 403, 'the simulator control interface answers loopback peers (127.0.0.1, ::1) only'));
  const text = req.body === undefined ? '' : req.body.toString();
  let body: unknown;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch (e) {
      return answer(400, failureEnvelope(envelope, 400, `the request body is not JSON: ${(e as Error).message}`));
    }
  }
  syncClock();
  const reply = handleControl(cluster, req.method, req.url, body, envelope);
  return answer(reply.status, reply.body);
}
