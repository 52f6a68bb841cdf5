import { namesParam } from '../../conform/envelope.ts';
import { describeAnswer, type Answer, type Outcome } from './property-client.ts';
import { PropertyViolation, type StepVerdict } from './violation.ts';

/** What the spec lets a target answer to one request, given the reference model's state. */
export interface Expectation {
  /** Outcomes that conform; anything else is a violation of `rule`. */
  allowed: readonly Outcome[];
  /** The spec assertion the expectation comes from (its level is the rule's). */
  assertion: string;
  rule: string;
  /** The rule in words, completed in the message by what came back. */
  says: string;
  /** For a refusal as invalid: the parameter its text should name, and how strongly. */
  namesParam?: { param: string; assertion: string };
  /** For a refusal: envelope codes the spec fixes (e.g. 1 or 100 for an unknown tenant on update). */
  codes?: readonly number[];
  /** For a refusal: a text the failure must contain (case-insensitive). */
  textIncludes?: { text: string; assertion: string };
  /** On success, `data` must be this text (spec: writes answer `success` unless stated otherwise). */
  successData?: string;
}

/** Checks an answer against an expectation; every problem becomes a violation in `verdict`. */
export function checkAnswer(answer: Answer, exp: Expectation, verdict: StepVerdict): void {
  const id = answer.endpoint.id;
  const ex = answer.exchange;
  if (!exp.allowed.includes(answer.outcome)) {
    verdict.add(
      new PropertyViolation(exp.assertion, id, exp.rule, `${exp.says}, but got ${answer.outcome} (${describeAnswer(answer)})`, ex),
    );
    return;
  }
  if (answer.outcome === 'ok' && exp.successData !== undefined && answer.envelope?.data !== exp.successData) {
    verdict.add(
      new PropertyViolation(
        exp.assertion,
        id,
        `${exp.rule}.data`,
        `a successful write answers data = ${JSON.stringify(exp.successData)}, got ${JSON.stringify(answer.envelope?.data).slice(0, 120)}`,
        ex,
      ),
    );
  }
  if (answer.outcome === 'invalid' && exp.namesParam && !namesParam(answer.text, exp.namesParam.param)) {
    verdict.add(
      new PropertyViolation(
        exp.namesParam.assertion,
        id,
        `${exp.rule}.names-param`,
        `the refusal should name the parameter ${exp.namesParam.param}: ${describeAnswer(answer)}`,
        ex,
      ),
    );
  }
  if (answer.outcome !== 'ok' && exp.codes && !(answer.envelope && exp.codes.includes(answer.envelope.code))) {
    verdict.add(
      new PropertyViolation(
        exp.assertion,
        id,
        `${exp.rule}.code`,
        `${exp.says} with code ${exp.codes.join(' or ')}, but got ${describeAnswer(answer)}`,
        ex,
      ),
    );
  }
  if (answer.outcome !== 'ok' && exp.textIncludes && !answer.text.toLowerCase().includes(exp.textIncludes.text.toLowerCase())) {
    verdict.add(
      new PropertyViolation(
        exp.textIncludes.assertion,
        id,
        `${exp.rule}.text`,
        `${exp.says} with a text containing "${exp.textIncludes.text}", but got ${describeAnswer(answer)}`,
        ex,
      ),
    );
  }
}

/** The model cannot tell whether the request took effect. */
export function uncertain(outcome: Outcome): boolean {
  return outcome === 'server-error' || outcome === 'no-answer' || outcome === 'malformed';
}
