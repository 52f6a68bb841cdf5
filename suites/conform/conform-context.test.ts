import { describe, expect, it } from 'vitest';
import { CONTRACT } from '../../contract/index.ts';
import type { Target } from '../targets/target.ts';
import { ConformContext, fail, pass } from './conform-context.ts';

/** A target no check here sends anything to. */
const silent: Target = {
  name: 'none',
  baseUrl: 'http://127.0.0.1:1',
  capabilities: { remotePeer: { available: false, reason: 'none' }, loopback: true },
  login: () => Promise.reject(new Error('not used')),
  request: () => Promise.reject(new Error('not used')),
  close: () => Promise.resolve(),
};

describe('ConformContext.check: a check resting on earlier checks', () => {
  const set = CONTRACT.find((e) => e.id === 'cluster.config.set')!;
  const get = CONTRACT.find((e) => e.id === 'cluster.config.get')!;

  it('decides nothing when one of them failed: a pass is inconclusive, a failure names the failed one as its cause', async () => {
    const ctx = new ConformContext(silent, 1, CONTRACT);
    const refused = await ctx.check(set, 'config.set.MqttLimit.accepted', 'config.set.type.limit', () => fail('refused'));
    const accepted = await ctx.check(set, 'config.set.MqttSchema.accepted', 'config.set.type.schema', () => pass('accepted'));

    const readBack = await ctx.check(get, 'read-back', 'config.set.at-once', () => ({ ...pass('shown'), dependsOn: [accepted, refused] }));
    expect(readBack).toMatchObject({
      status: 'inconclusive',
      message: 'shown (not evidence: it rests on config.set.MqttLimit.accepted, which failed)',
    });
    expect(readBack.consequenceOf).toBeUndefined();

    const notShown = await ctx.check(get, 'read-back-2', 'config.set.at-once', () => ({ ...fail('not shown'), dependsOn: [refused] }));
    expect(notShown).toMatchObject({
      status: 'fail',
      message: 'not shown',
      consequenceOf: { endpoint: 'cluster.config.set', check: 'config.set.MqttLimit.accepted' },
    });
  });

  it('is left as it is when every check it rests on passed', async () => {
    const ctx = new ConformContext(silent, 1, CONTRACT);
    const accepted = await ctx.check(set, 'a', 'config.set.type.schema', () => pass('accepted'));
    expect(await ctx.check(get, 'b', 'config.set.at-once', () => ({ ...pass('shown'), dependsOn: [accepted] }))).toMatchObject({
      status: 'pass',
      message: 'shown',
    });
    const failed = await ctx.check(get, 'c', 'config.set.at-once', () => ({ ...fail('not shown'), dependsOn: [accepted] }));
    expect(failed.consequenceOf).toBeUndefined();
  });

  it('records the rule a failure names, and only on a failure', async () => {
    const ctx = new ConformContext(silent, 1, CONTRACT);
    const rule = { id: 'r', wrong: 'something is wrong', subject: 's' };
    expect((await ctx.check(set, 'x', 'config.set.type.schema', () => ({ ...fail('no'), rule }))).rule).toEqual(rule);
    expect((await ctx.check(set, 'y', 'config.set.type.schema', () => ({ ...pass('yes'), rule }))).rule).toBeUndefined();
  });
});
