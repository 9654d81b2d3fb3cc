// Tests of the chat bridge's small pure modules: dedup and
// safety (guard.js), result summarising and capping, badge, settings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admitCall, admitMessage, callSignature, freshSafety, hashText, humanMessage, placeKey } from '../../../bridge/core/guard.js';
import { base64Bytes, formatReply, summariseBinary, transportReply } from '../../../bridge/core/result_format.js';
import { badgeFor } from '../../../bridge/core/badge.js';
import { defaultSettings, normalizeSettings } from '../../../bridge/core/settings.js';

test('places: the same conversation, position and text collide; any of them differing does not', () => {
  const call = '{"capability":"computer.click","arguments":{"x":1,"y":2}}';
  assert.equal(placeKey('/c/1', 3, call), placeKey('/c/1', 3, call));
  assert.notEqual(placeKey('/c/1', 3, call), placeKey('/c/2', 3, call));
  assert.notEqual(placeKey('/c/1', 3, call), placeKey('/c/1', 4, call));
  assert.notEqual(placeKey('/c/1', 3, call), placeKey('/c/1', 3, call + ' '));
  assert.match(hashText('abc'), /^[0-9a-f]{16}$/);
  assert.notEqual(hashText('ab'), hashText('ba'));
});

test('a message runs once; a reply streamed in the same page runs at a place seen before, a re-render or another page does not', () => {
  const text = '{"capability":"computer.screenshot"}';
  const msg = (page, id, over = {}) => ({ conversation: '/c/1', index: 1, text, page, id, streamed: true, ...over });
  const cases = [
    // [name, earlier messages, the message, fresh?]
    ['a first message', [], msg('p', '1.0'), true],
    ['the same message again', [msg('p', '1.0')], msg('p', '1.0'), false],
    ['a new element streamed at the same place (replaced in place)', [msg('p', '1.0')], msg('p', '2.0'), true],
    ['a new reply written into the same element', [msg('p', '1.0')], msg('p', '1.1'), true],
    ['a new conversation at the same path in the same page', [msg('p', '1.0')], msg('p', '9.0'), true],
    ['the same call in another conversation, complete', [msg('p', '1.0')], msg('q', '1.0', { conversation: '/c/2', streamed: false }), true],
    ['a reload: complete at a place seen before', [msg('p', '1.0')], msg('q', '1.0', { streamed: false }), false],
    ['a second tab streaming the same conversation', [msg('p', '1.0')], msg('q', '1.0'), false],
    ['a re-render in the same page: complete at a place seen before', [msg('p', '1.0')], msg('p', '7.0', { streamed: false }), false],
    ['a complete message at a new position', [msg('p', '1.0')], msg('p', '2.0', { index: 2, streamed: false }), true],
    ['the same element id in another page', [msg('p', '1.0')], msg('q', '1.0', { index: 2 }), true],
  ];
  for (const [name, earlier, m, fresh] of cases) {
    let seen = [];
    for (const e of earlier) seen = admitMessage(seen, e).seen;
    const got = admitMessage(seen, m);
    assert.equal(got.fresh, fresh, name);
    if (!fresh) assert.equal(got.reason, 'already executed', name);
  }
});

test('remembered messages are bounded, newest kept', () => {
  let seen = [];
  for (let i = 0; i < 5; i++) seen = admitMessage(seen, { conversation: '/', index: i, text: 'x', page: 'p', id: `${i}.0`, streamed: false }, 3).seen;
  assert.deepEqual(seen.map(([, id]) => id), ['2.0', '3.0', '4.0']);
  assert.equal(admitMessage(seen, { conversation: '/', index: 0, text: 'x', page: 'q', id: '0.0', streamed: false }).fresh, true, 'forgotten places run again');
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
    source: '.assistant', destination: 'prompt', autoSend: true, sendButton: '', streaming: '', preset: '', promptOnStart: false,
    debounceMs: 100, maxConsecutive: 25, maxChars: 20000,
  });
  assert.deepEqual(errors, { sendButton: 'required when Auto-send is on' });
  assert.deepEqual(normalizeSettings({ source: '9x' }, { requireSelectors: true }).errors, { source: 'not a class, id or CSS selector', destination: 'required' });
  const kept = normalizeSettings({ streaming: ' button.stop ', preset: 'chatgpt', promptOnStart: 'yes' }).settings;
  assert.deepEqual([kept.streaming, kept.preset, kept.promptOnStart], ['button.stop', 'chatgpt', true]);
  assert.equal(normalizeSettings({ preset: 'no-such-site' }).settings.preset, '', 'unknown presets are dropped');
  assert.deepEqual(normalizeSettings({ streaming: '9x' }).errors, { streaming: 'not a class, id or CSS selector' });
});
