// The chat bridge's decision on a reply (bridge/core/judge.js), step by step
// and as a whole: each table row is the origin's state and the page's
// message in, the verdict, the writes and the effects out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ackEntry, admitReply, gateReply, ranReply, runningNotice, stateKeys, workerStoppedWhile } from '../../../bridge/core/judge.js';
import { freshSafety, hashText } from '../../../bridge/core/guard.js';

const CALL = '{"capability":"computer.click","arguments":{"x":1,"y":2}}';
const settings = { maxChars: 10_000, autoSend: true, maxConsecutive: 3 };
const message = (over = {}) => ({ page: 'doc1', reply: 4, arrived: true, why: '', arrivedAt: 1000, text: CALL, index: 2, conversation: '/c/1', ...over });
const gateState = (over = {}) => ({ armed: true, tabId: 7, prefixes: ['computer'], now: 5000, ...over });

test('the gate: what never reaches the lock', () => {
  const cases = [
    ['not armed', message(), gateState({ armed: false }), { verdict: { action: 'none', reason: 'not armed' } }],
    ['no page id', message({ page: '' }), gateState(), { verdict: { action: 'none', reason: 'no reply id' } }],
    ['no reply id', message({ reply: 'x' }), gateState(), { verdict: { action: 'none', reason: 'no reply id' } }],
  ];
  for (const [name, m, state, want] of cases) assert.deepEqual(gateReply(m, state), want, name);

  const prose = gateReply(message({ text: 'Sure, here is how.' }), gateState());
  assert.equal(prose.verdict.action, 'none');
  assert.equal(prose.record.notACall, prose.verdict.reason, 'a reply that is no call is recorded with the gate\'s reason');
  assert.equal(gateReply(message({ text: '{"capability":"other.click"}' }), gateState()).verdict.action, 'none', 'a prefix the host does not serve is no call');

  for (const [why, words] of [['baseline', /already on the page/], ['scrolled', /came into view/]]) {
    const d = gateReply(message({ arrived: false, why }), gateState());
    assert.equal(d.verdict.skipped, true);
    assert.match(d.verdict.reason, words);
    assert.deepEqual(d.lastEvent, { kind: 'skipped', capability: 'computer.click', reason: d.verdict.reason });
    assert.deepEqual(d.badge, ['skipped', `computer.click: ${d.verdict.reason}`]);
  }
});

test('the gate hands on what the lock needs, bounded', () => {
  const { go } = gateReply(message({ page: 'p'.repeat(300), conversation: 'c'.repeat(5000), arrivedAt: undefined }), gateState());
  assert.equal(go.page, `7/${'p'.repeat(100)}`);
  assert.equal(go.conversation.length, 2048);
  assert.equal(go.arrivedAt, 5000, 'no arrival time: now');
  assert.equal(go.capability, 'computer.click');
  assert.deepEqual(go.call.arguments, { x: 1, y: 2 });
  assert.equal(gateReply(message({ conversation: 3 }), gateState()).go.conversation, '/');
});

const go = () => gateReply(message(), gateState()).go;
const entry = (over) => ({ page: '7/doc1', reply: 4, hash: hashText(CALL), arrivedAt: 1000, admittedAt: 1005, doneAt: 2000, ...over });
const lockState = (over = {}) => ({ seen: [], safety: freshSafety(), settings, now: 5000, running: () => false, ...over });

test('under the lock: run, skip, interrupted, stopped by the limits', () => {
  const fresh = admitReply(go(), lockState());
  assert.equal(fresh.run, true);
  assert.equal(fresh.verdict, undefined);
  assert.deepEqual(fresh.writes.seen.map((e) => [e.page, e.reply, e.doneAt]), [['7/doc1', 4, null]]);
  assert.equal(fresh.writes.safety.consecutive, 1);

  const again = admitReply(go(), lockState({ seen: [entry()] }));
  assert.deepEqual(again.verdict, { action: 'none', call: true, skipped: true, reason: 'it already ran' });
  assert.equal(again.writes, undefined, 'a skipped reply writes nothing');
  assert.equal(again.run, undefined);

  const lost = admitReply(go(), lockState({ seen: [entry({ doneAt: null })] }));
  assert.equal(lost.markDone, true);
  assert.equal(lost.verdict.action, 'inject');
  assert.equal(lost.verdict.autoSend, true);
  assert.match(lost.verdict.text, /interrupted/);
  assert.equal(lost.record.call.mayHaveRun, true);
  assert.deepEqual(lost.badge, ['error', workerStoppedWhile('computer.click')]);
  assert.deepEqual(lost.lastEvent, { kind: 'failed', stage: 'interrupted', error: workerStoppedWhile('computer.click') });

  const stillRunning = admitReply(go(), lockState({ seen: [entry({ doneAt: null })], running: () => true }));
  assert.equal(stillRunning.verdict.reason, 'it already ran', 'a reply this worker still runs is not interrupted');

  const limited = admitReply(go(), lockState({ safety: { ...freshSafety(), consecutive: 3 } }));
  assert.equal(limited.verdict.action, 'stopped');
  assert.match(limited.verdict.reason, /^Gnosis stopped: 3 tool calls in a row .*Start again from the options page\.$/);
  assert.equal(limited.disarm, limited.record.stopped);
  assert.deepEqual(Object.keys(limited.writes), ['seen'], 'the reply is recorded as seen, the safety state kept');
});

test('after the call: the result to write, or nothing when the origin was stopped meanwhile', () => {
  const cases = [
    ['ok', { ok: true, code: undefined, result: 'done' }, true,
      { badge: ['armed', undefined], lastEvent: { kind: 'executed', capability: 'computer.click', ok: true, code: undefined }, failed: undefined }],
    ['failed', { ok: false, error: true, code: 'FORBIDDEN' }, true,
      { badge: ['error', 'FORBIDDEN'], lastEvent: { kind: 'executed', capability: 'computer.click', ok: false, code: 'FORBIDDEN' }, failed: 'FORBIDDEN' }],
    ['interrupted', { ok: false, code: 'HOST_EXITED', interrupted: true }, true,
      { badge: ['error', 'HOST_EXITED: computer.click was interrupted and may have run'], lastEvent: { kind: 'executed', capability: 'computer.click', ok: false, code: 'HOST_EXITED' }, failed: 'HOST_EXITED: computer.click was interrupted and may have run' }],
  ];
  for (const [name, result, armed, want] of cases) {
    const d = ranReply(go(), { result, armed, settings });
    assert.deepEqual(d.badge, want.badge, name);
    assert.deepEqual(d.lastEvent, want.lastEvent, name);
    assert.equal(d.verdict.action, 'inject', name);
    assert.equal(d.verdict.failed, want.failed, name);
    assert.deepEqual([d.verdict.page, d.verdict.reply], ['7/doc1', 4], name);
  }
  assert.deepEqual(ranReply(go(), { result: { ok: true }, armed: false, settings }), { verdict: { action: 'none', call: true, reason: 'stopped while running' } });
});

test('one wording for a worker that stopped during a call, on the page and on the badge', () => {
  assert.equal(workerStoppedWhile('computer.click'), "the extension's worker stopped while computer.click was running; it may have run on the desktop");
  assert.match(workerStoppedWhile(null), /while it was handling a call; it may have run on the desktop$/);
  const notice = runningNotice('computer.click', settings);
  assert.equal(notice.why, workerStoppedWhile('computer.click'));
  assert.match(notice.interrupted, /computer\.click was interrupted/);
});

test('acknowledgments count on, say what ended the reply, and the keys are per origin', () => {
  const first = ackEntry(null, { index: 3, ended: 'indicator' }, { action: 'none', reason: 'not armed' });
  assert.deepEqual(first, { count: 1, index: 3, ended: 'indicator', action: 'none', reason: 'not armed' });
  assert.deepEqual(ackEntry(first, { ended: 'quiet' }, undefined), { count: 2, index: -1, ended: 'quiet', action: 'error', reason: '' });
  assert.equal(ackEntry(null, { ended: '<b>page words</b>' }, undefined).ended, '', 'only the two known paths are kept');
  assert.deepEqual(stateKeys('https://a.example'), { seen: 'seen:https://a.example', safety: 'safety:https://a.example', ack: 'ack:https://a.example' });
});
