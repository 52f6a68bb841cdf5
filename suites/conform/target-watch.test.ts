import { describe, expect, it } from 'vitest';
import { TransportError, type Target, type TargetRequest, type TargetResponse } from '../targets/target.ts';
import { LOST_IN_A_ROW, WatchedTarget } from './target-watch.ts';

/** A target whose answers a test decides: `down(path)` true means no answer at all (connection refused). */
function fakeTarget(down: (req: TargetRequest) => boolean, error = 'connect ECONNREFUSED 127.0.0.1:1'): Target & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    name: 'fake',
    baseUrl: 'http://127.0.0.1:1',
    capabilities: { remotePeer: { available: false, reason: 'none' }, loopback: true },
    login: () => Promise.reject(new Error('not used')),
    close: () => Promise.resolve(),
    request: async (req): Promise<TargetResponse> => {
      asked.push(`${req.method} ${req.path}`);
      if (down(req)) throw new TransportError(error, 1);
      return { status: 200, headers: {}, text: '{}', json: {}, durationMs: 1, retries: 0 };
    },
  };
}

const get = (path: string): TargetRequest => ({ method: 'GET', path });
const settle = (p: Promise<unknown>) =>
  p.then(
    () => 'answered',
    (e: Error) => e.message,
  );

describe('WatchedTarget', () => {
  it('leaves one endpoint that never answers to its own findings: the same path failing is no stop', async () => {
    const watch = new WatchedTarget(fakeTarget((r) => r.path === '/api/hangs'));
    for (let i = 0; i < 10; i++) await settle(watch.request(get('/api/hangs')));
    expect(watch.stopped).toBeUndefined();
    expect(await settle(watch.request(get('/api/other')))).toBe('answered');
  });

  it('probes after unanswered requests over two paths, and goes on when the probe is answered', async () => {
    const inner = fakeTarget((r) => r.path.startsWith('/api/broken'));
    const watch = new WatchedTarget(inner);
    for (const p of ['/api/broken/a', '/api/broken/b', '/api/broken/a']) await settle(watch.request(get(p)));
    expect(inner.asked.slice(-1)).toEqual(['GET /health/ready']);
    expect(watch.stopped).toBeUndefined();
    expect(await settle(watch.request(get('/api/fine')))).toBe('answered');
  });

  it('takes broken answers (resets, not HTTP, too large) for a target that is there: no probe, no stop', async () => {
    const inner = fakeTarget(() => true, 'GET http://127.0.0.1:1/x: UND_ERR_SOCKET: other side closed');
    const watch = new WatchedTarget(inner);
    for (let i = 0; i < 9; i++) await settle(watch.request(get(`/api/p${i}`)));
    expect(inner.asked.filter((a) => a === 'GET /health/ready')).toEqual([]);
    expect(watch.stopped).toBeUndefined();
    // A probe that gets a broken answer is an answer: the target is there.
    let timeouts = true;
    const half = fakeTarget(
      (r) => timeouts || r.path === '/health/ready',
      'GET http://127.0.0.1:1/x: HPE_INVALID_CONSTANT: Expected HTTP/',
    );
    const watch2 = new WatchedTarget({
      ...half,
      request: (req) =>
        timeouts && req.path !== '/health/ready'
          ? Promise.reject(new TransportError('no answer within 300 ms (--timeout)', 300))
          : half.request(req),
    });
    for (const p of ['/api/a', '/api/b', '/api/c']) await settle(watch2.request(get(p)));
    timeouts = false;
    expect(watch2.stopped).toBeUndefined();
  });

  it('stops when the probe of /health/ready and / gets no answer either: later requests are not sent', async () => {
    let dead = false;
    const inner = fakeTarget(() => dead);
    const times = [new Date('2026-01-02T03:04:05.000Z'), new Date('2026-01-02T03:04:06.000Z'), new Date('2026-01-02T03:04:07.000Z')];
    const watch = new WatchedTarget(inner, () => times.shift() ?? new Date(0));
    await watch.request(get('/api/a'));
    dead = true;
    const lost = [get('/api/b'), get('/api/b'), get('/api/c')];
    for (const r of lost) expect(await settle(watch.request(r))).toBe('connect ECONNREFUSED 127.0.0.1:1');
    expect(watch.stopped).toEqual({
      at: '2026-01-02T03:04:05.000Z',
      request: 'GET /api/b',
      requestNumber: 2,
      error: 'connect ECONNREFUSED 127.0.0.1:1',
      inARow: LOST_IN_A_ROW,
      probe: 'GET /health/ready: connect ECONNREFUSED 127.0.0.1:1; GET /: connect ECONNREFUSED 127.0.0.1:1',
    });
    const asked = inner.asked.length;
    const after = get('/api/d');
    expect(await settle(watch.request(after))).toBe('not sent: the target stopped answering at 2026-01-02T03:04:05.000Z (GET /api/b)');
    expect(inner.asked.length).toBe(asked);
    for (const r of [...lost, after]) expect(watch.lostToStop(r)).toBe(true);
    expect(watch.lostToStop(get('/api/a'))).toBe(false);
  });
});
