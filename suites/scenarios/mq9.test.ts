import { describe, expect, it } from 'vitest';
import { runConform } from '../run/runner.ts';
import type { Report } from '../conform/report-model.ts';
import { SIM_ADMIN, SimTarget } from '../targets/sim-target.ts';
import { UrlTarget } from '../targets/url-target.ts';

/**
 * The mq9 lists' default page of 20, against a server whose mq9 lists answer every record without
 * limit (switch mq9-lists-answer-every-record): decided only with more than 20 records. With the
 * simulator's control the run makes them, and both lists fail; over plain HTTP it cannot (mailboxes
 * and agents come from protocol commands), so the check is inconclusive with the few records there —
 * and fails when the target already holds more than 20.
 */
const check = (report: Report, id: string) =>
  report.endpoints.find((e) => e.id === id)?.checks.find((c) => c.id === 'mq9.default-limit-20');

async function conformMq9(preexisting: number, control: boolean): Promise<Report> {
  const sim = await SimTarget.start({
    seed: 2,
    nodes: 1,
    transport: control ? 'in-process' : 'loopback',
    workload: 'none',
    deviations: ['mq9-lists-answer-every-record'],
  });
  try {
    for (let i = 0; i < preexisting; i++) sim.control.createMailbox({ tenant: 'default', name: `pre.box${i}`, ttl: 0, desc: '' });
    // Over HTTP only: the same server without the control interface.
    const target = control ? sim : await UrlTarget.create({ url: sim.baseUrl, username: SIM_ADMIN.username, password: SIM_ADMIN.password });
    try {
      return await runConform({ target, seed: 2, only: ['mq9'], properties: false, mqtt: 'none' });
    } finally {
      if (!control) await target.close();
    }
  } finally {
    await sim.close();
  }
}

describe('mq9.default-limit-20', () => {
  it('with the control interface, the run makes 21 mailboxes and 21 agents: a page of every record fails on both lists', async () => {
    const report = await conformMq9(0, true);
    for (const list of ['mq9.mail.list', 'mq9.agent.list']) {
      const c = check(report, list);
      expect([list, c?.status, c?.level]).toEqual([list, 'fail', 'MUST']);
      expect(c?.message).toMatch(/without limit the page must hold 20 \(the mq9 lists' default\), got 2[12]/);
    }
  }, 60_000);

  it('over HTTP only, with 20 or fewer records, is inconclusive (never a pass), naming why', async () => {
    const report = await conformMq9(3, false);
    for (const list of ['mq9.mail.list', 'mq9.agent.list']) {
      const c = check(report, list);
      expect([list, c?.status]).toEqual([list, 'inconclusive']);
      expect(c?.message).toMatch(/the run cannot make more \(they are created by mq9 protocol commands, not HTTP/);
    }
  }, 60_000);

  it('over HTTP only, a target already holding more than 20 mailboxes fails the mail list', async () => {
    const report = await conformMq9(25, false);
    expect([check(report, 'mq9.mail.list')?.status, check(report, 'mq9.mail.list')?.message]).toEqual([
      'fail',
      "25 mailboxes: without limit the page must hold 20 (the mq9 lists' default), got 25",
    ]);
  }, 60_000);
});
