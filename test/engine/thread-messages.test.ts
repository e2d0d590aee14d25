import { describe, expect, it } from 'vitest';
import { messageOf } from '../../src/engine/thread-messages.js';
import { event } from '../../src/testing/store-contract/helpers.js';

const write = { tool: 'site_create', args: { name: 'Alpha' }, summary: 'create site Alpha', id: 'p1' };

describe("a thread's messages from its events", () => {
  it('an approval carries the pending write as the run summary shows it', () => {
    const message = messageOf(event('run_1', 4, 'run.suspended', { kind: 'APPROVAL', pending: write }));
    expect(message).toEqual({
      runId: 'run_1',
      at: '2025-01-01T00:00:04Z',
      role: 'assistant',
      kind: 'approval',
      text: 'create site Alpha',
      pending: write,
    });
  });

  it('a pending item that is not one shows the message without it (an event is data)', () => {
    const message = messageOf(
      event('run_1', 4, 'run.suspended', { kind: 'APPROVAL', pending: { summary: 'half an item' } }),
    );
    expect(message).toMatchObject({ kind: 'approval', text: 'half an item' });
    expect(message).not.toHaveProperty('pending');
  });

  it('a question is the question, with no pending item', () => {
    const message = messageOf(
      event('run_1', 4, 'run.suspended', {
        kind: 'FOLLOW_UP',
        pending: { question: 'Which site?', options: null },
      }),
    );
    expect(message).toEqual({
      runId: 'run_1',
      at: '2025-01-01T00:00:04Z',
      role: 'assistant',
      kind: 'question',
      text: 'Which site?',
    });
  });
});
