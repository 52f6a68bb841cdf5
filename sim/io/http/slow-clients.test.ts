import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusterServer, type RunningCluster } from '../serve/cluster-server.ts';
import { MAX_BODY_BYTES } from '../../admin-api/core/parse-request.ts';

/**
 * Slow and half-open connections over real sockets: they must not starve other clients, and the
 * header/request timeouts (shortened here to 1 s / 2 s) must cut them off.
 */

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;

let server: RunningCluster;
let port: number;
const opened = new Set<Socket>();

beforeAll(async () => {
  server = await startClusterServer({
    seed: 1,
    nodes: 1,
    port: 0,
    workload: 'none',
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  });
  port = Number(new URL(server.baseUrl).port);
});
afterAll(async () => {
  for (const s of opened) s.destroy();
  await server?.close();
});

/** A socket that records what came back and when it closed (ms after opening). */
function open(): Promise<{ socket: Socket; received: () => string; closedAfter: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ port, host: '127.0.0.1' });
    opened.add(socket);
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => {});
    const closedAfter = new Promise<number>((r) =>
      socket.on('close', () => {
        opened.delete(socket);
        r(performance.now() - started);
      }),
    );
    socket.once('connect', () => resolve({ socket, received: () => Buffer.concat(chunks).toString('latin1'), closedAfter }));
    socket.once('error', reject);
  });
}

/** A normal request's round trip in ms. */
async function normalRequestMs(): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${server.baseUrl}/api/status`);
  expect(res.status).toBe(200);
  await res.json();
  return performance.now() - t;
}

const withinCutoff = (ms: number, timeout: number) => ms < timeout + timeout / 2 + 1000; // timeout + check interval + slack

/**
 * A normal request answered within this is not starved: one waiting behind the slow connections would
 * wait for them to be cut off, at the headers timeout or later. Not a speed target (the machine may
 * be loaded), only shorter than any wait the slow connections could cause.
 */
const NOT_STARVED_MS = HEADERS_TIMEOUT_MS;

describe('slow and half-open connections', () => {
  it('connections that send nothing do not starve others and are closed after the headers timeout', async () => {
    const idle = await Promise.all(Array.from({ length: 50 }, () => open()));
    for (let i = 0; i < 5; i++) expect(await normalRequestMs()).toBeLessThan(NOT_STARVED_MS);
    const closed = await Promise.all(idle.map((c) => c.closedAfter));
    for (const ms of closed) expect(withinCutoff(ms, HEADERS_TIMEOUT_MS), `closed after ${Math.round(ms)} ms`).toBe(true);
  }, 15_000);

  it('a client sending its headers byte by byte is cut off by the headers timeout with a 408 envelope', async () => {
    const slow = await Promise.all(Array.from({ length: 20 }, () => open()));
    const head = 'GET /api/status HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: ' + 'a'.repeat(1000);
    const timers = slow.map((c) => {
      let i = 0;
      const timer = setInterval(() => (c.socket.writable && i < head.length ? c.socket.write(head[i++]) : clearInterval(timer)), 100);
      c.socket.on('close', () => clearInterval(timer));
      return timer;
    });
    const during: number[] = [];
    for (let i = 0; i < 5; i++) during.push(await normalRequestMs());
    for (const ms of during) expect(ms).toBeLessThan(NOT_STARVED_MS);
    const closed = await Promise.all(slow.map((c) => c.closedAfter));
    timers.forEach(clearInterval);
    for (const ms of closed) expect(withinCutoff(ms, HEADERS_TIMEOUT_MS), `closed after ${Math.round(ms)} ms`).toBe(true);
    const answer = slow[0].received();
    if (answer.length > 0) {
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 408 });
    }
  }, 15_000);

  it('a client sending a small body very slowly is cut off by the request timeout', async () => {
    const c = await open();
    c.socket.write(
      'POST /api/cluster/tenant/create HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"tenant_name":"',
    );
    const timer = setInterval(() => c.socket.writable && c.socket.write('a'), 100);
    expect(await normalRequestMs()).toBeLessThan(NOT_STARVED_MS);
    const ms = await c.closedAfter;
    clearInterval(timer);
    expect(withinCutoff(ms, REQUEST_TIMEOUT_MS), `closed after ${Math.round(ms)} ms`).toBe(true);
    expect(server.cluster.tenants.names().some((n) => n.startsWith('aaa'))).toBe(false);
  }, 15_000);

  it(`a body over ${MAX_BODY_BYTES} bytes streamed slowly gets 413 as soon as it crosses the limit`, async () => {
    const c = await open();
    c.socket.write(
      `POST /api/cluster/tenant/create HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${4 * 1024 * 1024}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const started = performance.now();
    let sent = 0;
    // 12 chunks of 256 KiB, one every 50 ms: past the 2 MiB limit after ~450 ms, far from the end of the body.
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (!c.socket.writable || sent >= 12 || /\r\n\r\n/.test(c.received())) {
          clearInterval(timer);
          resolve();
          return;
        }
        c.socket.write(chunk);
        sent++;
      }, 50);
    });
    const deadline = performance.now() + 3000;
    while (!/\r\n\r\n/.test(c.received()) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const answer = c.received();
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).message).toMatch(/exceeds the limit of 2097152 bytes/);
    expect(performance.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS);
    expect(await normalRequestMs()).toBeLessThan(NOT_STARVED_MS);
  }, 15_000);
});
