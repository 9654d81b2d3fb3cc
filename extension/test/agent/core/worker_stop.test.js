// A worker stopped in the middle of an action (issue 29 item 6): the
// browser's words are recognised and replaced by the step's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { INTERRUPTED_RESULT, WORKER_STOPPED, interruptedText, isWorkerGone, workerStopped } from '../../../agent/core/worker_stop.js';
import { AgentSession } from '../../../agent/core/agent_session.js';

test('the browser\'s words for a worker that went away are recognised; others are not', () => {
  for (const m of ['A listener indicated an asynchronous response by returning true, but the message channel closed before a response was received',
    'Could not establish connection. Receiving end does not exist.', 'The message port closed before a response was received.', 'Extension context invalidated.']) {
    assert.equal(isWorkerGone(new Error(m)), true, m);
  }
  assert.equal(isWorkerGone(new Error('cannot control that tab: Another debugger is already attached')), false);
  assert.equal(workerStopped(new Error('x')).code, WORKER_STOPPED);
});

test('the words name the step, the action and what was done about it', () => {
  assert.equal(interruptedText({ phase: 'act', step: 3, action: 'LongPress(point=(1,2), duration=5)' }),
    'Interrupted at step 3 (LongPress(point=(1,2), duration=5)) while acting: the browser stopped Gnosis\'s background worker. The action may have been done in part. Gnosis released the mouse buttons and keys it held and let go of the tab. Look at the page, then run the task again to go on.');
  assert.match(interruptedText({ phase: 'observe', step: 2 }), /^Interrupted at step 2 while taking the screenshot: .* Gnosis let go of the tab\./);
  assert.match(interruptedText({ phase: 'attach', step: 0 }), /^Interrupted at the start of the task while taking over the tab/);
});

test('the session: a worker stop during an action is an error with its step, said in words, and the step gets a result', async () => {
  const records = [];
  const browser = {
    start: async () => ({ tabId: 1 }),
    observe: async () => ({ image: 'x', mime: 'image/jpeg', viewport: { width: 1000, height: 1000 }, url: 'https://a.example/', title: 'A' }),
    act: async () => { throw workerStopped(new Error('message channel closed before a response was received')); },
    stop: async () => {},
  };
  const model = { complete: async () => ({ content: '<think>hold</think><action>LongPress(point=(10,10), duration=5)</action>', usage: null }) };
  const session = new AgentSession({ browser, model, config: { settings: { maxSteps: 5, coordinateMode: 'normalized' }, endpoint: 'x' }, template: '{coordinate_rules}', onRecord: (r) => records.push(r) });
  const result = await session.run('hold it');
  assert.equal(result.outcome, 'error');
  assert.match(result.error, /^Interrupted at step 1 \(LongPress\(point=\(10,10\), duration=5\)\) while acting/);
  const outcome = records.find((r) => r.kind === 'outcome');
  assert.equal(outcome.step, 1);
  assert.doesNotMatch(JSON.stringify(records), /message channel/);
  assert.ok(records.some((r) => r.kind === 'result' && r.step === 1 && r.text === INTERRUPTED_RESULT));
});
