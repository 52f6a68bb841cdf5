import { RC } from './reason-codes.ts';

/**
 * Topic aliases a client sets on its PUBLISH packets (MQTT 5 §3.3.2.3.4): alias 1..max stands for
 * the topic last sent with it, on this connection only. The broker sends none of its own (it may
 * choose not to), so only the inbound direction exists.
 */
export type AliasOutcome = { ok: true; topic: string } | { ok: false; code: number; reason: string };

export class InboundTopicAliases {
  private readonly topics = new Map<number, string>();

  /** @param max the Topic Alias Maximum the CONNACK announced (0: aliases not allowed). */
  constructor(private readonly max: number) {}

  /** The topic a PUBLISH is for, given its topic name and alias (either may be absent). */
  resolve(topic: string, alias: number | undefined): AliasOutcome {
    if (alias === undefined) {
      if (topic === '') return { ok: false, code: RC.protocolError, reason: 'a PUBLISH without a topic alias needs a topic name' };
      return { ok: true, topic };
    }
    if (alias === 0 || alias > this.max)
      return {
        ok: false,
        code: RC.topicAliasInvalid,
        reason: `topic alias ${alias} is outside 1..${this.max} (the Topic Alias Maximum sent in CONNACK)`,
      };
    if (topic !== '') {
      this.topics.set(alias, topic);
      return { ok: true, topic };
    }
    const known = this.topics.get(alias);
    if (known === undefined) return { ok: false, code: RC.protocolError, reason: `topic alias ${alias} was never set on this connection` };
    return { ok: true, topic: known };
  }

  /** The aliases in use, as the client record's `topic_alias` map shows them. */
  entries(): Record<string, string> {
    return Object.fromEntries([...this.topics].map(([k, v]) => [String(k), v]));
  }
}
