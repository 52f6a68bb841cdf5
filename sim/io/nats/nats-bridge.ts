import { connect, StringCodec, type MsgHdrs, type NatsConnection, type Subscription } from 'nats';
import type { Cluster } from '../../model/cluster/cluster.ts';
import { answerMq9Request, MQ9_PREFIX, MQ9_SUBSCRIPTIONS, type Mq9Headers } from '../../model/cluster-ops/mq9-protocol.ts';

export interface NatsBridgeOptions {
  /** NATS server URL, e.g. nats://127.0.0.1:4222. */
  url: string;
  /** Runs before each request is applied (live serve: brings virtual time up to wall time). */
  beforeRequest?: () => void;
  /** Subject prefix instead of `$mq9.AI` (tests use a unique one, so parallel runs on one server do not answer each other). */
  subjectPrefix?: string;
  /** Called for failures of the connection (the bridge keeps serving what it can). */
  onError?: (error: unknown) => void;
}

export interface NatsBridge {
  close(): Promise<void>;
}

/** A message's NATS headers by lower-case name (the mq9 headers are matched that way). */
function headersOf(h: MsgHdrs | undefined): Mq9Headers {
  const out: Record<string, string> = {};
  if (h) for (const k of h.keys()) out[k.toLowerCase()] = h.get(k);
  return out;
}

/**
 * The mq9 protocol over a real NATS server (live mode, real I/O: not replayable, so it is exempt
 * from the determinism scan). It subscribes to the mq9 request subjects (the MSG commands through a
 * wildcard per command, the mailbox address being part of the subject) and answers each request by
 * applying it to the model synchronously in the message callback, replying with the real server's
 * JSON. Requests with no reply subject are applied and not answered (AGENT.REPORT is often published).
 */
export async function startNatsBridge(cluster: Cluster, options: NatsBridgeOptions): Promise<NatsBridge> {
  const nc: NatsConnection = await connect({ servers: options.url, name: 'mqsim-mq9', timeout: 3_000 });
  const sc = StringCodec();
  const subs: Subscription[] = [];
  const prefix = options.subjectPrefix ?? MQ9_PREFIX;
  for (const canonical of MQ9_SUBSCRIPTIONS) {
    const subject = prefix + canonical.slice(MQ9_PREFIX.length);
    subs.push(
      nc.subscribe(subject, {
        callback: (err, msg) => {
          if (err) {
            options.onError?.(err);
            return;
          }
          try {
            options.beforeRequest?.();
            const asked = MQ9_PREFIX + msg.subject.slice(prefix.length);
            const reply = answerMq9Request(cluster, asked, sc.decode(msg.data), headersOf(msg.headers));
            if (msg.reply) msg.respond(sc.encode(JSON.stringify(reply ?? { error: `unknown subject ${msg.subject}` })));
          } catch (e) {
            options.onError?.(e);
            if (msg.reply) msg.respond(sc.encode(JSON.stringify({ error: `internal error: ${(e as Error).message}` })));
          }
        },
      }),
    );
  }
  await nc.flush();
  return {
    async close() {
      for (const s of subs) s.unsubscribe();
      await nc.drain();
    },
  };
}
