// The mqsim image's health check (Dockerfile HEALTHCHECK): exit 0 when the server in this container
// answers GET /health/ready with 200, else 1. Plain JavaScript run by `node` alone, so it needs
// neither tsx nor the package's build, and is copied into the image on its own.
//
// Which port? The server's own command line says it: with no arguments this reads PID 1's
// (/proc/1/cmdline: `mqsim serve --port 9000 --host …`), so `docker run IMAGE serve --port 9000`
// stays healthy without telling the check anything. Arguments (`--port N`, `--host H`) override it.
import { readFileSync } from 'node:fs';

const DEFAULT_PORT = 58080;
const TIMEOUT_MS = 3000;

/** The value of `--name V` or `--name=V` in argv (the last one wins, as in mqsim's CLI), if any. */
function flag(argv, name) {
  let value;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === name && i + 1 < argv.length) value = argv[i + 1];
    else if (argv[i].startsWith(`${name}=`)) value = argv[i].slice(name.length + 1);
  }
  return value;
}

/** The readiness URL of a server started with `argv`, or an Error saying why there is none. */
function readyUrlOf(argv) {
  const rawPort = flag(argv, '--port') ?? String(DEFAULT_PORT);
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port < 1 || port > 65535) return new Error(`no fixed admin port to check (--port ${rawPort})`);
  const host = flag(argv, '--host');
  // A server listening on every interface answers on loopback too.
  const address = host === undefined || host === '0.0.0.0' || host === '::' || host === 'localhost' ? '127.0.0.1' : host;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}/health/ready`;
}

function serverArgv() {
  try {
    return readFileSync('/proc/1/cmdline', 'utf8')
      .split('\0')
      .filter((a) => a !== '');
  } catch {
    return [];
  }
}

async function main() {
  const given = process.argv.slice(2);
  const url = readyUrlOf(given.length > 0 ? given : serverArgv());
  if (url instanceof Error) {
    console.error(`unhealthy: ${url.message}`);
    return 1;
  }
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (res.status === 200) return 0;
    console.error(`unhealthy: ${url} answered ${res.status}`);
  } catch (e) {
    console.error(`unhealthy: ${url}: ${e.cause?.code ?? e.cause?.message ?? e.message}`);
  }
  return 1;
}

process.exitCode = await main();
