// How the Side Panel words a task's outcome: the log line and its class, the
// usage tally, and which question a reopened conversation still waits on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OUTCOME } from '../../../agent/core/agent_session.js';
import { outcomeClass, outcomeText, pendingQuestion, usageLine, userText } from '../../../agent/core/outcome_text.js';
import { createMeter, meterFromRecords } from '../../../agent/core/task_meter.js';

test('each outcome has its line', () => {
  assert.equal(outcomeText({ outcome: OUTCOME.FINISHED, answer: '42' }), 'Finished: 42');
  assert.equal(outcomeText({ outcome: OUTCOME.FINISHED, answer: '' }), 'Finished: (no answer given)');
  assert.equal(outcomeText({ outcome: OUTCOME.CALL_USER, question: 'Which one?' }), 'The agent asks: Which one?');
  assert.equal(outcomeText({ outcome: OUTCOME.STOPPED }), 'Stopped.');
  assert.equal(outcomeText({ outcome: OUTCOME.STOPPED, step: 3 }), 'Stopped at step 3.');
  assert.equal(outcomeText({ outcome: OUTCOME.STOPPED, compaction: true }), 'Stopped while compacting the conversation.');
  assert.equal(outcomeText({ outcome: OUTCOME.INTERRUPTED, step: 2, error: 'the side panel was closed during step 2' }), 'Interrupted at step 2: the side panel was closed during step 2.');
  assert.equal(outcomeText({ outcome: OUTCOME.STEP_LIMIT, error: 'the step limit (5) was reached' }), 'Stopped: the step limit (5) was reached.');
  assert.equal(outcomeText({ outcome: OUTCOME.ERROR, error: 'boom' }), 'Error: boom');
});

test('errors and questions are marked in the entry class', () => {
  assert.equal(outcomeClass(OUTCOME.ERROR), 'outcome error');
  assert.equal(outcomeClass(OUTCOME.CALL_USER), 'outcome question');
  assert.equal(outcomeClass(OUTCOME.FINISHED), 'outcome');
  assert.equal(outcomeClass(OUTCOME.STOPPED), 'outcome');
});

test('the usage line reads the whole task\'s meter and says when the numbers are estimates', () => {
  const reported = createMeter();
  for (const u of [{ prompt_tokens: 100, completion_tokens: 10 }, { prompt_tokens: 200, completion_tokens: 20 }]) { reported.usage(u); reported.step(); }
  assert.equal(usageLine(reported.snapshot()), '2 step(s), 2 request(s), 300 prompt + 30 completion tokens');
  const mixed = createMeter();
  mixed.usage({ prompt_tokens: 100 });
  mixed.usage({ prompt_tokens: 50, completion_tokens: 5, estimated: true });
  mixed.step();
  assert.equal(usageLine(mixed.snapshot()), '1 step(s), 2 request(s), ≈150 prompt + ≈5 completion tokens (estimated: the server reported no usage)');
});

test('a reopened task counts its steps and requests from the start, not from the reopen', () => {
  const records = [
    { kind: 'task', seq: 1 }, { kind: 'action', seq: 2, step: 1, usage: { prompt_tokens: 10, completion_tokens: 1 } },
    { kind: 'outcome', outcome: 'call_user', seq: 3 }, { kind: 'user', seq: 4 },
  ];
  const m = meterFromRecords(records);
  m.usage({ prompt_tokens: 20, completion_tokens: 2 });
  m.step();
  assert.equal(usageLine(m.snapshot()), '2 step(s), 2 request(s), 30 prompt + 3 completion tokens');
});

test('a question is pending only when nothing but notes and summaries follow it', () => {
  const question = { kind: 'outcome', outcome: 'call_user', seq: 3, text: 'Which one?' };
  assert.equal(pendingQuestion([{ kind: 'task', seq: 1 }, { kind: 'action', seq: 2 }, question]), question);
  assert.equal(pendingQuestion([question, { kind: 'note', seq: 4 }, { kind: 'summary', seq: 5 }]), question);
  assert.equal(pendingQuestion([question, { kind: 'user', seq: 4 }]), null);
  assert.equal(pendingQuestion([{ kind: 'outcome', outcome: 'finished', seq: 1 }]), null);
  assert.equal(pendingQuestion([]), null);
});

test('an answer given on the page is said once: the words "I did it on the page." need no second mark', () => {
  assert.equal(userText('I did it on the page.', true), 'I did it on the page.');
  assert.equal(userText('Logged in', true), 'Logged in (acted on the page)');
  assert.equal(userText('Logged in', false), 'Logged in');
  assert.equal(userText(undefined, false), '');
});
