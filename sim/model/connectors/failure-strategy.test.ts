import { describe, expect, it } from 'vitest';
import { OperationError } from '../errors/operation-error.ts';
import { parseFailureStrategy } from './failure-strategy.ts';

function refused(raw: unknown, field: string, text: string): void {
  let error: unknown;
  try {
    parseFailureStrategy(raw);
  } catch (e) {
    error = e;
  }
  expect(error, `expected ${JSON.stringify(raw)} to be refused`).toBeInstanceOf(OperationError);
  const e = error as OperationError;
  expect(e.kind).toBe('invalid');
  expect(e.param).toBe(field === '' ? 'failure_strategy' : `failure_strategy.${field}`);
  expect(e.message).toContain(text);
}

describe('failure strategy', () => {
  it('is discard when omitted or null', () => {
    expect(parseFailureStrategy(undefined)).toEqual({ strategy: 'discard' });
    expect(parseFailureStrategy(null)).toEqual({ strategy: 'discard' });
  });

  it('discard: other fields null or absent, anything else refused', () => {
    expect(parseFailureStrategy({ strategy: 'discard' })).toEqual({ strategy: 'discard' });
    expect(parseFailureStrategy({ strategy: 'discard', retry_total_times: null, wait_time_ms: null, topic_name: null, extra: 1 })).toEqual({
      strategy: 'discard',
    });
    refused({ strategy: 'discard', retry_total_times: 3 }, 'retry_total_times', 'is not used by strategy discard');
    refused({ strategy: 'discard', wait_time_ms: 10 }, 'wait_time_ms', 'is not used by strategy discard');
    refused({ strategy: 'discard', topic_name: 'dlq' }, 'topic_name', 'dead_message_queue');
  });

  it('discard_after_retry: needs retry_total_times and wait_time_ms above 0, no dead-letter topic', () => {
    expect(parseFailureStrategy({ strategy: 'discard_after_retry', retry_total_times: 1, wait_time_ms: 1 })).toEqual({
      strategy: 'discard_after_retry',
      retry_total_times: 1,
      wait_time_ms: 1,
    });
    refused({ strategy: 'discard_after_retry', wait_time_ms: 1 }, 'retry_total_times', 'is required for strategy discard_after_retry');
    refused({ strategy: 'discard_after_retry', retry_total_times: 1 }, 'wait_time_ms', 'is required');
    refused({ strategy: 'discard_after_retry', retry_total_times: 0, wait_time_ms: 1 }, 'retry_total_times', 'must be above 0 (got 0)');
    refused({ strategy: 'discard_after_retry', retry_total_times: 1, wait_time_ms: 0 }, 'wait_time_ms', 'must be above 0 (got 0)');
    refused({ strategy: 'discard_after_retry', retry_total_times: 1.5, wait_time_ms: 1 }, 'retry_total_times', 'must be an integer');
    refused({ strategy: 'discard_after_retry', retry_total_times: '3', wait_time_ms: 1 }, 'retry_total_times', 'must be an integer');
    refused(
      { strategy: 'discard_after_retry', retry_total_times: 1, wait_time_ms: 1, topic_name: 'dlq' },
      'topic_name',
      'is not used by strategy discard_after_retry',
    );
  });

  it('dead_message_queue: defaults 3 retries, 1000 ms, topic dead_letter_queue; topic 1-256', () => {
    expect(parseFailureStrategy({ strategy: 'dead_message_queue' })).toEqual({
      strategy: 'dead_message_queue',
      retry_total_times: 3,
      wait_time_ms: 1000,
      topic_name: 'dead_letter_queue',
    });
    expect(
      parseFailureStrategy({ strategy: 'dead_message_queue', retry_total_times: 7, wait_time_ms: 50, topic_name: 'x'.repeat(256) }),
    ).toEqual({
      strategy: 'dead_message_queue',
      retry_total_times: 7,
      wait_time_ms: 50,
      topic_name: 'x'.repeat(256),
    });
    refused({ strategy: 'dead_message_queue', topic_name: '' }, 'topic_name', 'must not be empty');
    refused({ strategy: 'dead_message_queue', topic_name: 'x'.repeat(257) }, 'topic_name', 'at most 256 characters (got 257)');
    refused({ strategy: 'dead_message_queue', retry_total_times: 0 }, 'retry_total_times', 'above 0');
    refused({ strategy: 'dead_message_queue', wait_time_ms: -1 }, 'wait_time_ms', 'above 0');
  });

  it('refuses an unknown or missing strategy and a non-object', () => {
    refused({ strategy: 'retry_forever' }, 'strategy', 'must be one of "discard", "discard_after_retry", "dead_message_queue"');
    refused({ strategy: 'Discard' }, 'strategy', 'must be one of');
    refused({}, 'strategy', 'is required');
    refused([], '', 'must be a JSON object');
    refused('discard', '', 'must be a JSON object');
  });
});
