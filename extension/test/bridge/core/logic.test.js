// Tests of the chat bridge's small pure modules: dedup and
// safety (guard.js), result summarising and capping, badge, settings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admitCall, admitReply, arrivalReason, callSignature, freshSafety, hashText, humanMessage, replyDone } from '../../../bridge/core/guard.js';
import { base64Bytes, formatReply, summariseBinary, transportReply } from '../../../bridge/core/result_format.js';
import { badgeFor } from '../../../bridge/core/badge.js';
import { defaultSettings, normalizeSettings } from '../../../bridge/core/site_settings.js';

test('text hashes are 16 hex digits and order-sensitive', () => {
  assert.match(hashText('abc'), /^[0-9a-f]{16}$/);
  assert.notEqual(hashText('ab'), hashText('ba'));
});

test('a reply that arrived runs once; the same text is a new call only once the earlier one was delivered', () => {
  const text = '{"capability":"computer.screenshot"}';
  const ran = (page, reply, arrivedAt, doneAt) => ({ page, reply, hash: hashText(text), arrivedAt, admittedAt: arrivedAt + 5, doneAt });
  const cases = [
    // [name, replies run before, the reply (arrived at), running in this worker?, fresh | reason]
    ['a first reply', [], { page: 'p', reply: 1, arrivedAt: 100 }, false, true],
    ['the same reply handed over again', [ran('p', 1, 100, 200)], { page: 'p', reply: 1, arrivedAt: 100 }, false, 'it already ran'],
    ['the same call in a later turn (after the delivery)', [ran('p', 1, 100, 200)], { page: 'p', reply: 2, arrivedAt: 300 }, false, true],
    ['the same call in another tab, later', [ran('p', 1, 100, 200)], { page: 'q', reply: 1, arrivedAt: 300 }, false, true],
    ['a second tab showing the reply while it runs', [ran('p', 1, 100, null)], { page: 'q', reply: 7, arrivedAt: 101 }, true,
      'another tab of this site ran the same reply'],
    ['the page swapped the element before the result was delivered', [ran('p', 1, 100, 200)], { page: 'p', reply: 2, arrivedAt: 150 }, false,
      'the page showed the reply that just ran again before its result was delivered'],
    ['a call that ran in a worker that went away does not hold its text forever', [ran('p', 1, 100, null)], { page: 'q', reply: 1, arrivedAt: 300 }, false, true],
  ];
  for (const [name, before, m, running, want] of cases) {
    const got = admitReply(before, { ...m, text }, { now: 1000, running: () => running });
    if (want === true) {
      assert.equal(got.fresh, true, name);
      assert.deepEqual(got.seen.at(-1), { page: m.page, reply: m.reply, hash: hashText(text), arrivedAt: m.arrivedAt, admittedAt: 1000, doneAt: null }, name);
    } else {
      assert.deepEqual([got.fresh, got.reason], [false, want], name);
      assert.equal(got.seen, before, name);
    }
  }
});

test('a reply whose call was running when its worker went away is reported interrupted, once', () => {
  const text = '{"capability":"computer.slow"}';
  let seen = admitReply([], { page: 'p', reply: 1, text, arrivedAt: 1 }, { now: 2 }).seen;
  assert.equal(admitReply(seen, { page: 'p', reply: 1, text, arrivedAt: 1 }, { now: 3, running: () => true }).reason, 'it already ran', 'still running here');
  assert.equal(admitReply(seen, { page: 'p', reply: 1, text, arrivedAt: 1 }, { now: 3 }).interrupted, true, 'a new worker');
  seen = replyDone(seen, 'p', 1, 4);
  assert.equal(seen[0].doneAt, 4);
  assert.deepEqual(admitReply(seen, { page: 'p', reply: 1, text, arrivedAt: 1 }, { now: 5 }), { fresh: false, reason: 'it already ran', seen });
});

test('remembered replies are bounded, newest kept', () => {
  let seen = [];
  for (let i = 0; i < 5; i++) seen = admitReply(seen, { page: 'p', reply: i, text: `t${i}`, arrivedAt: i }, { now: i, max: 3 }).seen;
  assert.deepEqual(seen.map((e) => e.reply), [2, 3, 4]);
});

test('a reply that did not arrive says why', () => {
  assert.match(arrivalReason('baseline'), /already on the page when the bridge started watching/);
  assert.match(arrivalReason('shown'), /came into view without being written or following a message/);
});

test('call signatures ignore key order', () => {
  assert.equal(callSignature({ capability: 'c.x', arguments: { a: 1, b: { d: 2, c: 3 } } }),
    callSignature({ arguments: { b: { c: 3, d: 2 }, a: 1 }, capability: 'c.x' }));
  assert.notEqual(callSignature({ capability: 'c.x', arguments: { a: 1 } }), callSignature({ capability: 'c.x', arguments: { a: 2 } }));
});

test('the consecutive-call cap refuses the call after the limit until a human message', () => {
  let s = freshSafety();
  for (let i = 0; i < 4; i++) {
    const r = admitCall(s, { capability: 'computer.click', arguments: { x: i } }, { maxConsecutive: 4 });
    assert.equal(r.allowed, true, `call ${i}`);
    s = r.state;
  }
  const refused = admitCall(s, { capability: 'computer.click', arguments: { x: 9 } }, { maxConsecutive: 4 });
  assert.equal(refused.allowed, false);
  assert.equal(refused.code, 'CALL_LIMIT');
  assert.match(refused.reason, /4 tool calls in a row/);
  assert.equal(admitCall(humanMessage(), { capability: 'computer.click', arguments: { x: 9 } }, { maxConsecutive: 4 }).allowed, true);
});

test('the default cap is 25 consecutive calls', () => {
  let s = freshSafety();
  let n = 0;
  for (;;) {
    const r = admitCall(s, { capability: 'computer.click', arguments: { x: n } });
    if (!r.allowed) break;
    s = r.state;
    n++;
  }
  assert.equal(n, 25);
});

test('repeated identical calls stop at the third in a row; a different call in between resets', () => {
  const a = { capability: 'computer.click', arguments: { x: 1, y: 1 } };
  const b = { capability: 'computer.screenshot', arguments: {} };
  let r = admitCall(freshSafety(), a);
  r = admitCall(r.state, a);
  assert.equal(r.allowed, true);
  const third = admitCall(r.state, a);
  assert.equal(third.allowed, false);
  assert.equal(third.code, 'REPEATED_CALL');
  r = admitCall(r.state, b);
  r = admitCall(r.state, a);
  assert.equal(r.allowed, true);
});

test('a new conversation starts the repeat count again but not the consecutive count', () => {
  const a = { capability: 'computer.screenshot', arguments: {} };
  let r = admitCall(freshSafety(), a, {}, '/c/1');
  r = admitCall(r.state, a, {}, '/c/1');
  assert.equal(admitCall(r.state, a, {}, '/c/1').allowed, false, 'third in one conversation');
  r = admitCall(r.state, a, {}, '/c/2');
  assert.equal(r.allowed, true, 'first in the next conversation');
  r = admitCall(r.state, a, {}, '/c/2');
  assert.equal(r.allowed, true);
  assert.equal(admitCall(r.state, a, {}, '/c/2').code, 'REPEATED_CALL');
  assert.equal(r.state.consecutive, 4);
  assert.equal(admitCall(r.state, a, { maxConsecutive: 4 }, '/c/3').code, 'CALL_LIMIT');
});

test('images and blobs are summarised with type and size', () => {
  const png = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256)).toString('base64');
  const got = summariseBinary({ result: { content: [{ type: 'text', text: 'ok' }, { type: 'image', mimeType: 'image/png', data: png }] } });
  assert.deepEqual(got.result.content[1], { type: 'image', mimeType: 'image/png', bytes: 3000, data: '[image omitted: image/png, 3000 bytes]' });
  assert.deepEqual(got.result.content[0], { type: 'text', text: 'ok' });
  const blob = summariseBinary({ type: 'resource', resource: { uri: 'x', mimeType: 'application/pdf', blob: 'QUJD' } });
  assert.equal(blob.resource.blob, '[blob omitted: application/pdf, 3 bytes]');
  assert.equal(summariseBinary({ s: png }).s, '[base64 data omitted: 3000 bytes]');
  assert.equal(summariseBinary({ s: 'short text' }).s, 'short text');
  assert.equal(summariseBinary({ s: 'a sentence with spaces '.repeat(200) }).s, 'a sentence with spaces '.repeat(200));
  assert.equal(base64Bytes('QUI='), 2);
});

test('the whole reply is injected without its id; long replies are capped with a marker', () => {
  const reply = { id: 7, ok: false, error: true, code: 'INVALID_ARGUMENTS', message: 'bad', details: { errors: [{ path: '/x', message: 'm' }] } };
  assert.deepEqual(JSON.parse(formatReply(reply)), { ok: false, error: true, code: 'INVALID_ARGUMENTS', message: 'bad', details: { errors: [{ path: '/x', message: 'm' }] } });
  const long = formatReply({ id: 1, ok: true, result: { content: [{ type: 'text', text: 'x'.repeat(5000) }] } }, { maxChars: 1000 });
  assert.ok(long.startsWith('{"ok":true'));
  assert.match(long, /\n…\[truncated by Gnosis: showing 1000 of \d+ characters\]$/);
  assert.equal(long.split('\n')[0].length, 1000);
});

test('a transport failure becomes an error reply with the advice', () => {
  const err = Object.assign(new Error('Specified native messaging host not found.'), { code: 'HOST_NOT_FOUND', advice: 'install' });
  assert.deepEqual(transportReply(err, 'computer.click'), {
    ok: false, error: true, code: 'HOST_NOT_FOUND', capability: 'computer.click', message: 'Specified native messaging host not found.', advice: 'install',
  });
});

test('badge states', () => {
  assert.equal(badgeFor('armed').text, 'ON');
  assert.equal(badgeFor('running').text, '…');
  assert.equal(badgeFor('error', 'boom').title, 'Gnosis: error (see the options page): boom');
  assert.equal(badgeFor('nonsense').text, '');
});

test('settings are normalised and arming requires the selectors', () => {
  assert.deepEqual(normalizeSettings({}).settings, defaultSettings());
  const { settings, errors } = normalizeSettings({ source: ' .assistant ', destination: 'prompt', debounceMs: '50', maxConsecutive: 'x', autoSend: 1 }, { requireSelectors: true });
  assert.deepEqual(settings, {
    source: '.assistant', destination: 'prompt', autoSend: true, autoSendChosen: false, sendButton: '', sendWithEnter: false, streaming: '', preset: '', promptOnStart: false,
    debounceMs: 100, maxConsecutive: 25, maxChars: 20000, attachBy: '', attachTarget: '', imageMaxSide: 1568, maxImages: 4,
  });
  assert.deepEqual(errors, { sendButton: 'required when Auto-send is on' });
  assert.deepEqual(normalizeSettings({ source: '9x' }, { requireSelectors: true }).errors, { source: 'not a class, id or CSS selector', destination: 'required' });
  const kept = normalizeSettings({ streaming: ' button.stop ', preset: 'chatgpt', promptOnStart: 'yes' }).settings;
  assert.deepEqual([kept.streaming, kept.preset, kept.promptOnStart], ['button.stop', 'chatgpt', true]);
  assert.equal(normalizeSettings({ preset: 'no-such-site' }).settings.preset, '', 'unknown presets are dropped');
  assert.deepEqual(normalizeSettings({ streaming: '9x' }).errors, { streaming: 'not a class, id or CSS selector' });
});
