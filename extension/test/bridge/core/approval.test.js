// Pending "ask each time" approvals: tokens, one answer each, deadlines, what
// the approval window shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PendingApprovals, countdown, randomToken, visibleJson } from '../../../bridge/core/approval.js';

const event = {
  id: 41, event: 'approval', origin: 'https://chat.example.com', capability: 'computer.click',
  arguments: { x: 1, y: 2 }, title: 'Click', annotations: { destructiveHint: false }, timeoutMs: 2000,
};

test('tokens are 128 random bits and differ each time', () => {
  const a = randomToken();
  assert.match(a, /^[0-9a-f]{32}$/);
  assert.notEqual(a, randomToken());
});

test('a pending approval is found by its token and by its window, and answered once', () => {
  let t = 1000;
  const p = new PendingApprovals({ now: () => t });
  const token = p.add(event, { tabId: 7 });
  assert.equal(p.size, 1);
  assert.equal(p.get(token).executeId, 41);
  assert.equal(p.get(token).tabId, 7);
  assert.equal(p.get('nope'), undefined);
  assert.equal(p.get(undefined), undefined);
  p.setWindow(token, 99);
  assert.equal(p.tokenOfWindow(99), token);
  assert.equal(p.tokenOfWindow(98), undefined);
  t = 2500;
  assert.equal(p.answer(token, true).answer, 'allow');
  assert.equal(p.answer(token, false), null, 'a second answer is ignored');
  assert.equal(p.view(token).answer, 'allow');
  assert.equal(p.forget(token).executeId, 41);
  assert.equal(p.size, 0);
  assert.equal(p.view(token), null);
  assert.equal(p.answer(token, true), null);
});

test('an answer after the deadline is refused', () => {
  let t = 0;
  const p = new PendingApprovals({ now: () => t, token: () => 'tok' });
  const token = p.add(event);
  assert.equal(token, 'tok');
  assert.equal(p.get(token).deadline, 2000);
  t = 2001;
  assert.equal(p.answer(token, true), null);
  assert.equal(p.get(token).answer, null);
});

test('a missing or nonsense timeout falls back to a minute', () => {
  const p = new PendingApprovals({ now: () => 0 });
  assert.equal(p.get(p.add({ ...event, timeoutMs: undefined })).deadline, 60_000);
  assert.equal(p.get(p.add({ ...event, timeoutMs: -5 })).deadline, 60_000);
});

test('the window sees the call, never the execute id', () => {
  const p = new PendingApprovals({ now: () => 0 });
  const view = p.view(p.add(event));
  assert.deepEqual(view, {
    origin: 'https://chat.example.com', capability: 'computer.click', title: 'Click', annotations: { destructiveHint: false },
    argumentsJson: '{\n  "x": 1,\n  "y": 2\n}', deadline: 2000, timeoutMs: 2000, answer: null,
  });
});

test('arguments are shown whole, with invisible and direction-changing characters escaped', () => {
  const long = 'a'.repeat(50_000);
  assert.equal(JSON.parse(visibleJson({ long })).long.length, 50_000);
  const sneaky = { path: 'report\u202Efdp.exe', zw: 'de\u200Blete', nl: 'a\nb' };
  const shown = visibleJson(sneaky);
  assert.match(shown, /report\\u202efdp\.exe/);
  assert.match(shown, /de\\u200blete/);
  assert.match(shown, /a\\nb/);
  assert.doesNotMatch(shown, /[\u202E\u200B]/);
  assert.deepEqual(JSON.parse(shown), sneaky, 'still the same JSON value');
  assert.equal(visibleJson(undefined), '{}');
});

test('the countdown rounds up to whole seconds and stops at zero', () => {
  assert.deepEqual(countdown(60_000, 0), { seconds: 60, text: '1:00' });
  assert.deepEqual(countdown(10_000, 500), { seconds: 10, text: '0:10' });
  assert.deepEqual(countdown(1000, 999), { seconds: 1, text: '0:01' });
  assert.deepEqual(countdown(1000, 5000), { seconds: 0, text: '0:00' });
});

test('an agent\'s desktop call keeps its kind only when the host asks about that very call; the window sees the words, not the window id', () => {
  const p = new PendingApprovals({ token: (() => { let i = 0; return () => `t${i++}`; })() });
  const call = { capability: 'desktop.computer', arguments: { action: 'type', text: 'hello' } };
  const desktop = { kind: 'type', prefix: 'desktop', task: 'c:1', taskText: 'Say hello', page: 'https://a.example/', pageTitle: 'A', windowId: 7, call };
  const same = p.add({ id: 1, origin: 'chrome-extension://x', ...call, arguments: { text: 'hello', action: 'type' } }, { desktop });
  assert.equal(p.get(same).desktop.kind, 'type', 'same arguments in another key order');
  assert.equal(p.get(same).desktop.call, undefined);
  const other = p.add({ id: 2, origin: 'chrome-extension://x', capability: 'desktop.computer', arguments: { action: 'type', text: 'rm -rf ~' } }, { desktop });
  assert.equal(p.get(other).desktop.kind, null, 'another call than the agent made has no kind');
  assert.deepEqual(p.view(same).desktop, { kind: 'type', prefix: 'desktop', taskText: 'Say hello', page: 'https://a.example/', pageTitle: 'A' });
  assert.equal(p.view(same).argumentsJson, '{"text":"hello","action":"type"}', 'a desktop call\'s arguments on one line, exactly as asked');
  assert.equal(p.view(p.add({ id: 4, origin: 'https://chat.example', capability: 'c.t', arguments: { a: 1 } })).argumentsJson, '{\n  "a": 1\n}');
  assert.equal(p.view(p.add({ id: 3, origin: 'https://chat.example', capability: 'c.t' })).desktop, undefined, 'a site\'s call has none');
});
