/**
 * `mqsim serve --ui DIR`: a built dashboard served from the API's own origin, as the real server
 * serves `./dist` (reference notes §1.1: its router falls back to `ServeDir("./dist")` with
 * `not_found_service(ServeFile("./dist/index.html"))`). So:
 *
 * - paths the server routes (the API under /api, /health/*, /metrics, /debug/*, /mcp, the MCP
 *   discovery stubs, /register, the simulator's /_sim/) never reach the files;
 * - any other GET or HEAD is a file of DIR: `/` and `dir/` read `index.html`; a directory named
 *   without its slash is redirected (307) to it; a file that is not there answers `index.html` with
 *   status 404, as tower-http's `not_found_service` sets it (browsers render it, so deep links of a
 *   single-page application load); other methods get 405 with `Allow: GET,HEAD`;
 * - paths with `..` or a backslash, or that leave DIR through a symbolic link, are never read.
 *
 * One addition: a `config.js` holding `window.__APP_CONFIG__` (the RobustMQ dashboard's run-time
 * configuration, which its server rewrites at start) is served with `api.port` set to the port the
 * request arrived on, so the dashboard calls the node that served it. The file on disk is not changed.
 */
import { realpathSync, statSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';

export interface UiAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const MIME: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
};

/** Paths the server routes itself (the real router's routes before its static fallback, and /_sim/). */
export function isServerPath(path: string): boolean {
  return (
    path === '/api' ||
    path.startsWith('/api/') ||
    path.startsWith('/health/') ||
    path === '/metrics' ||
    path.startsWith('/debug/') ||
    path === '/mcp' ||
    path.startsWith('/mcp/') ||
    path.startsWith('/.well-known/') ||
    path === '/register' ||
    path.startsWith('/_sim/')
  );
}

/** A usage problem with the directory given to --ui. */
export class UiDirError extends Error {}

export class StaticUi {
  readonly root: string;

  /** Checks at start that DIR is a directory with an index.html, so a wrong path shows at once. */
  constructor(dir: string) {
    const root = resolve(dir);
    let isDir: boolean;
    try {
      isDir = statSync(root).isDirectory();
    } catch {
      throw new UiDirError(`--ui ${dir}: no such directory (give the folder of a built dashboard, e.g. ./dist)`);
    }
    if (!isDir) throw new UiDirError(`--ui ${dir}: not a directory (give the folder of a built dashboard, e.g. ./dist)`);
    try {
      if (!statSync(join(root, 'index.html')).isFile()) throw new Error('not a file');
    } catch {
      throw new UiDirError(`--ui ${dir}: no index.html in ${root} (is it the output folder of the dashboard's build?)`);
    }
    this.root = realpathSync(root);
  }

  /**
   * The answer for a request, or undefined when the server routes the path itself. `port` is the
   * port the request arrived on (for config.js).
   */
  async answer(
    method: string,
    rawPath: string,
    headers: Record<string, string | string[] | undefined>,
    port: number,
  ): Promise<UiAnswer | undefined> {
    let path: string;
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      path = rawPath;
    }
    if (isServerPath(rawPath) || isServerPath(path)) return undefined;
    const m = method.toUpperCase();
    if (m !== 'GET' && m !== 'HEAD') return { status: 405, headers: { allow: 'GET,HEAD' }, body: Buffer.alloc(0) };
    const file = await this.locate(path);
    if (file.kind === 'redirect') return { status: 307, headers: { location: `${rawPath}/` }, body: Buffer.alloc(0) };
    if (file.kind === 'missing') return this.serveFile(join(this.root, 'index.html'), 404, headers, port);
    return this.serveFile(file.path, 200, headers, port);
  }

  /** The file a path names inside the root, or why there is none. */
  private async locate(path: string): Promise<{ kind: 'file'; path: string } | { kind: 'redirect' } | { kind: 'missing' }> {
    const segments = path.split('/').filter((s) => s !== '');
    if (segments.some((s) => s === '..' || s.includes('\\') || s.includes('\0'))) return { kind: 'missing' };
    let full = join(this.root, ...segments);
    try {
      let info = await stat(full);
      if (info.isDirectory()) {
        if (!path.endsWith('/')) return { kind: 'redirect' };
        full = join(full, 'index.html');
        info = await stat(full);
      }
      if (!info.isFile()) return { kind: 'missing' };
      // A symbolic link may point out of the root: only files inside it are served.
      const real = await realpath(full);
      if (real !== this.root && !real.startsWith(this.root + sep)) return { kind: 'missing' };
      return { kind: 'file', path: real };
    } catch {
      return { kind: 'missing' };
    }
  }

  private async serveFile(
    file: string,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    port: number,
  ): Promise<UiAnswer> {
    const info = await stat(file);
    const modified = new Date(Math.floor(info.mtimeMs / 1000) * 1000);
    const since = headers['if-modified-since'];
    const sinceMs = typeof since === 'string' ? Date.parse(since) : NaN;
    let body: Buffer = await readFile(file);
    if (file.endsWith(`${sep}config.js`)) body = withApiPort(body, port);
    const out: Record<string, string> = {
      'content-type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'last-modified': modified.toUTCString(),
    };
    if (status === 200 && !Number.isNaN(sinceMs) && modified.getTime() <= sinceMs)
      return { status: 304, headers: out, body: Buffer.alloc(0) };
    return { status, headers: out, body };
  }
}

/**
 * The dashboard's run-time configuration pointed at this node: `api.port` set and `api.baseUrl`
 * cleared in `window.__APP_CONFIG__ = {...}`. A file in another form is served as it is.
 */
export function withApiPort(source: Buffer, port: number): Buffer {
  const text = source.toString('utf8');
  const m = /window\.__APP_CONFIG__\s*=\s*(\{[\s\S]*\})\s*;?\s*$/.exec(text);
  if (!m) return source;
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(m[1]) as Record<string, unknown>;
  } catch {
    return source;
  }
  const api = config.api !== null && typeof config.api === 'object' ? (config.api as Record<string, unknown>) : {};
  const rewritten = { ...config, api: { ...api, port, baseUrl: null } };
  return Buffer.from(`${text.slice(0, m.index)}window.__APP_CONFIG__ = ${JSON.stringify(rewritten)};\n`, 'utf8');
}
