import { describe, expect, it } from 'vitest';
import { RC } from './reason-codes.ts';
import { InboundTopicAliases } from './topic-aliases.ts';

describe('InboundTopicAliases', () => {
  it('remembers a topic per alias and resolves an empty topic name through it', () => {
    const aliases = new InboundTopicAliases(10);
    expect(aliases.resolve('a/b', 3)).toEqual({ ok: true, topic: 'a/b' });
    expect(aliases.resolve('', 3)).toEqual({ ok: true, topic: 'a/b' });
    expect(aliases.resolve('c', 3)).toEqual({ ok: true, topic: 'c' });
    expect(aliases.resolve('', 3)).toEqual({ ok: true, topic: 'c' });
    expect(aliases.entries()).toEqual({ '3': 'c' });
  });

  it('refuses alias 0, an alias above the maximum, an unknown alias and an empty topic without alias', () => {
    const aliases = new InboundTopicAliases(2);
    expect(aliases.resolve('x', 0)).toMatchObject({ ok: false, code: RC.topicAliasInvalid });
    expect(aliases.resolve('x', 3)).toMatchObject({ ok: false, code: RC.topicAliasInvalid });
    expect(aliases.resolve('', 1)).toMatchObject({ ok: false, code: RC.protocolError });
    expect(aliases.resolve('', undefined)).toMatchObject({ ok: false, code: RC.protocolError });
    expect(new InboundTopicAliases(0).resolve('x', 1)).toMatchObject({ ok: false, code: RC.topicAliasInvalid });
  });
});
