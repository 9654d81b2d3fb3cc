// How the Side Panel words a task's outcome: the log line and its class, the
// usage tally, and which question a reopened conversation still waits on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OUTCOME } from '../../../agent/core/agent_session.js';
import { outcomeClass, outcomeText, pendingQuestion, usageLine } from '../../../agent/core/sidepanel_outcome.js';

test('each outcome has its line', () => {
  assert.equal(outcomeText({ outcome: OUTCOME.FINISHED, answer: '42' }), 'Finished: 42');
  assert.equal(outcomeText({ outcome: OUTCOME.FINISHED, answer: '' }), 'Finished: (no answer given)');
  assert.equal(outcomeText({ outcome: OUTCOME.CALL_USER, question: 'Which one?' }), 'The agent asks: Which one?');
  assert.equal(outcomeText({ outcome: OUTCOME.STOPPED }), 'Stopped.');
  assert.equal(outcomeText({ outcome: OUTCOME.STEP_LIMIT, error: 'the step limit (5) was reached' }), 'Stopped: the step limit (5) was reached.');
  assert.equal(outcomeText({ outcome: OUTCOME.ERROR, error: 'boom' }), 'Error: boom');
});

test('errors and questions are marked in the entry class', () => {
  assert.equal(outcomeClass(OUTCOME.ERROR), 'outcome error');
  assert.equal(outcomeClass(OUTCOME.CALL_USER), 'outcome question');
  assert.equal(outcomeClass(OUTCOME.FINISHED), 'outcome');
  assert.equal(outcomeClass(OUTCOME.STOPPED), 'outcome');
});

test('the usage line sums the requests and says when the numbers are estimates', () => {
  const reported = [{ prompt_tokens: 100, completion_tokens: 10 }, { prompt_tokens: 200, completion_tokens: 20 }];
  assert.equal(usageLine(reported, 2), '2 step(s), 2 request(s), 300 prompt + 30 completion tokens');
  const mixed = [{ prompt_tokens: 100 }, { prompt_tokens: 50, completion_tokens: 5, estimated: true }];
  assert.equal(usageLine(mixed, 1), '1 step(s), 2 request(s), ≈150 prompt + ≈5 completion tokens (estimated: the server reported no usage)');
});

test('a question is pending only when nothing but notes and summaries follow it', () => {
  const question = { kind: 'outcome', outcome: 'call_user', seq: 3, text: 'Which one?' };
  assert.equal(pendingQuestion([{ kind: 'task', seq: 1 }, { kind: 'action', seq: 2 }, question]), question);
  assert.equal(pendingQuestion([question, { kind: 'note', seq: 4 }, { kind: 'summary', seq: 5 }]), question);
  assert.equal(pendingQuestion([question, { kind: 'user', seq: 4 }]), null);
  assert.equal(pendingQuestion([{ kind: 'outcome', outcome: 'finished', seq: 1 }]), null);
  assert.equal(pendingQuestion([]), null);
});
