import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, normalize } from 'node:path';

/**
 * What `python3 -m http.server` does, for tests of a target that is not the API: files from a
 * directory, an HTML 404 page for anything else, 501 for methods other than GET and HEAD.
 */
export function staticFileHandler(root: string): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(501, { 'content-type': 'text/html;charset=utf-8' });
      res.end(
        `<!DOCTYPE HTML><html><body><h1>Error response</h1><p>Error code: 501</p><p>Message: Unsupported method ('${req.method}').</p></body></html>`,
      );
      return;
    }
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]);
    const file = join(root, normalize(path === '/' ? '/index.html' : path));
    readFile(file).then(
      (body) => {
        res.writeHead(200, { 'content-type': file.endsWith('.html') ? 'text/html' : 'application/octet-stream' });
        res.end(body);
      },
      () => {
        res.writeHead(404, { 'content-type': 'text/html;charset=utf-8' });
        res.end('<!DOCTYPE HTML><html><body><h1>Error response</h1><p>Error code: 404</p><p>Message: File not found.</p></body></html>');
      },
    );
  };
}
