import { appendFile, mkdir, rename, stat } from 'node:fs/promises';
import { dirname, extname } from 'node:path';
import type { Connector, QueuedMessage } from '../../model/connectors/connector-types.ts';
import type { SinkResult } from '../../model/connectors/simulated-sink.ts';
import { cfgInt, cfgStr, deliveryRecord, errorText, perMessage, type LiveSink } from './sink-support.ts';

const GIB = 1024 ** 3;

/** One JSON line per message: the delivery record of the Events section plus the topic. */
export function fileLine(msg: QueuedMessage): string {
  return `${JSON.stringify({ topic: msg.topic, ...deliveryRecord(msg) })}\n`;
}

/**
 * The file a message goes to. hourly/daily rotation picks the file by the message's virtual
 * timestamp (UTC), inserting the period before the extension:
 * /var/log/mqtt.log → /var/log/mqtt.2026-01-01-13.log (hourly) or /var/log/mqtt.2026-01-01.log (daily).
 */
export function rotatedPath(path: string, strategy: string, timestampMs: number): string {
  if (strategy !== 'hourly' && strategy !== 'daily') return path;
  const iso = new Date(timestampMs).toISOString(); // a given instant, not the wall clock
  const period = strategy === 'daily' ? iso.slice(0, 10) : `${iso.slice(0, 10)}-${iso.slice(11, 13)}`;
  const ext = extname(path);
  return `${path.slice(0, path.length - ext.length)}.${period}${ext}`;
}

/**
 * `file`: appends one JSON line per message. Rotation: none; size — when appending would take the
 * file past max_size_gb GiB it is renamed to `<path>.<n>` (n = 1, 2, … the first unused) and a new
 * file begins; hourly/daily — see rotatedPath. The parent directory is created when missing.
 * `maxBytesOverride` is a test hook (a tiny size instead of whole GiB).
 */
export class FileSink implements LiveSink {
  private readonly path: string;
  private readonly strategy: string;
  private readonly maxBytes: number;

  constructor(connector: Connector, maxBytesOverride?: number) {
    this.path = cfgStr(connector.config, 'local_file_path');
    this.strategy = cfgStr(connector.config, 'rotation_strategy', 'none');
    this.maxBytes = maxBytesOverride ?? cfgInt(connector.config, 'max_size_gb', 1) * GIB;
  }

  async deliver(batch: readonly QueuedMessage[]): Promise<SinkResult> {
    const errors: (string | null)[] = [];
    for (const msg of batch) {
      try {
        await this.append(msg);
        errors.push(null);
      } catch (e) {
        errors.push(`file ${this.path}: ${errorText(e)}`);
      }
    }
    return perMessage(batch, errors);
  }

  private async append(msg: QueuedMessage): Promise<void> {
    const line = fileLine(msg);
    const target = rotatedPath(this.path, this.strategy, msg.timestamp);
    await mkdir(dirname(target), { recursive: true });
    if (this.strategy === 'size') {
      const size = await stat(target).then(
        (s) => s.size,
        () => 0,
      );
      if (size > 0 && size + Buffer.byteLength(line) > this.maxBytes) await rename(target, await this.nextRotatedName());
    }
    await appendFile(target, line, 'utf8');
  }

  private async nextRotatedName(): Promise<string> {
    for (let n = 1; ; n++) {
      const candidate = `${this.path}.${n}`;
      if (
        !(await stat(candidate).then(
          () => true,
          () => false,
        ))
      )
        return candidate;
    }
  }

  async close(): Promise<void> {}
}
