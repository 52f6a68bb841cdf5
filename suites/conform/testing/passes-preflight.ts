import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * For tests of servers that misbehave AFTER the run started: the preflight (preflight.ts) ends a run
 * against a server that never shows the API's envelope, so these servers answer its first
 * `GET /health/ready` as the API does (the real server's form B body), then turn hostile.
 */

/** The real server's ready answer (notes §4.12). */
export const READY_BODY = JSON.stringify({
  code: 0,
  data: { status: 'ok', check_type: 'ready', message: 'all configured ports are ready' },
  error: null,
});

const READY_RAW = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(READY_BODY)}\r\nconnection: close\r\n\r\n${READY_BODY}`;

/** A node:http handler that answers the first GET /health/ready with READY_BODY and hands everything else to `hostile`. */
export function apiOnceThen(
  hostile: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  let answered = false;
  return (req, res) => {
    if (!answered && req.method === 'GET' && req.url === '/health/ready') {
      answered = true;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(READY_BODY);
      return;
    }
    hostile(req, res);
  };
}

/** The same for a raw TCP server: the first connection asking GET /health/ready gets READY_BODY; every other goes to `hostile`. */
export function apiOnceThenTcp(hostile: (socket: Socket) => void): (socket: Socket) => void {
  let answered = false;
  return (socket) => {
    socket.once('data', (chunk: Buffer) => {
      if (!answered && chunk.toString('latin1').startsWith('GET /health/ready ')) {
        answered = true;
        socket.end(READY_RAW);
        return;
      }
      hostile(socket);
      // The hostile side may wait for the request it has not seen yet.
      socket.emit('data', chunk);
    });
  };
}
