import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkMessage, eligibleOrigin, originOfKey, permissionPattern, pickTab, siteKey, toCss } from '../../../bridge/core/selector.js';

test('only http and https pages are eligible', () => {
  const table = [
    ['https://chat.example.com/c/123?x=1', 'https://chat.example.com'],
    ['http://127.0.0.1:8080/chat.html', 'http://127.0.0.1:8080'],
    ['chrome://extensions/', null],
    ['file:///home/me/a.html', null],
    ['about:blank', null],
    ['chrome-extension://abc/options.html', null],
    ['data:text/html,hi', null],
    ['not a url', null],
    ['', null],
  ];
  for (const [url, want] of table) assert.equal(eligibleOrigin(url), want, url);
});

test('user input becomes one CSS selector', () => {
  const table = [
    ['chat', '#chat, .chat'],
    ['  assistant-message ', '#assistant-message, .assistant-message'],
    ['markdown prose w-full', '.markdown.prose.w-full'],
    ['.message.assistant', '.message.assistant'],
    ['#prompt', '#prompt'],
    ['div[data-role="assistant"] > .md', 'div[data-role="assistant"] > .md'],
    ['button[aria-label="Send"]', 'button[aria-label="Send"]'],
    ['', null],
    ['   ', null],
    ['9lives', null],
    [null, null],
  ];
  for (const [input, want] of table) assert.equal(toCss(input), want, String(input));
});

test('storage keys round-trip an origin', () => {
  assert.equal(siteKey('https://a.b'), 'site:https://a.b');
  assert.equal(originOfKey(siteKey('https://a.b')), 'https://a.b');
  assert.equal(originOfKey('armed:https://a.b'), null);
  assert.equal(permissionPattern('http://127.0.0.1:9'), 'http://127.0.0.1:9/*');
  // Firefox's match patterns cannot name a port: the pattern covers the host.
  assert.equal(permissionPattern('http://127.0.0.1:9', { portless: true }), 'http://127.0.0.1/*');
  assert.equal(permissionPattern('http://[::1]:3000', { portless: true }), 'http://[::1]/*');
  assert.equal(permissionPattern('https://chat.example.com', { portless: true }), 'https://chat.example.com/*');
});

test('pickTab takes the most recently used eligible tab, optionally of one origin', () => {
  const tabs = [
    { id: 1, url: 'chrome-extension://x/options.html', lastAccessed: 50 },
    { id: 2, url: 'https://a.example/chat', lastAccessed: 10 },
    { id: 3, url: 'https://b.example/', lastAccessed: 30 },
    { id: 4, url: 'chrome://newtab/', lastAccessed: 40 },
    { id: 5, url: 'https://a.example/other', lastAccessed: 20 },
  ];
  assert.equal(pickTab(tabs).id, 3);
  assert.equal(pickTab(tabs, 'https://a.example').id, 5);
  assert.equal(pickTab(tabs, 'https://c.example'), null);
  assert.equal(pickTab([]), null);
});

test('the live check: one element where every assistant message is expected is flagged; only visible elements mean replying', () => {
  const table = [
    // [field, result, kind, text]
    ['source', { count: 1, visible: 1 }, 'warn', /^⚠ matches only 1 element \(\.x\): Extract from should match every assistant message/],
    ['source', { count: 6, visible: 6 }, 'ok', /^✓ matches 6 elements \(\.x\)$/],
    ['source', { count: 0 }, '', /^no message on the page yet/],
    ['destination', { count: 1, editable: true }, 'ok', /^✓ matches 1 element \(\.x\)$/],
    ['destination', { count: 1, editable: false }, 'bad', /nothing editable inside/],
    ['destination', { count: 0 }, 'bad', /^✗ matches nothing/],
    ['streaming', { count: 1, visible: 0 }, '', /^matches 1 hidden element: not replying now; only a visible one means replying/],
    ['streaming', { count: 1, visible: 1 }, 'ok', /^✓ matches 1 element/],
    ['streaming', { count: 0 }, '', /^no reply streaming now/],
    ['sendButton', { count: 0 }, '', /some sites show it only once there is text/],
    ['sendButton', { error: 'invalid selector' }, 'bad', /^✗ not a valid selector$/],
    ['sendButton', { count: 1, visible: 1 }, 'ok', /^✓ matches 1 element \(\.x\)$/],
    // Pick took the form around a disabled button that ignores the pointer.
    ['sendButton', { count: 1, visible: 1, holdsButton: 'form' }, 'bad', /^✗ matches a <form> around a button, not the button: clicking it sends nothing; Pick the send button again/],
  ];
  for (const [field, result, kind, text] of table) {
    const got = checkMessage(field, result, '.x');
    assert.equal(got.kind, kind, `${field} ${JSON.stringify(result)}`);
    assert.match(got.text, text, `${field} ${JSON.stringify(result)}`);
  }
  assert.equal(checkMessage('source', { count: 3 }, null).kind, 'bad', 'no usable selector');
});

test('the send button checked with the input empty and holding text: a selector of the empty state is refused', () => {
  const state = checkMessage('sendButton', { count: 1, visible: 1, empty: 1, withText: 0 }, '.n-button--disabled');
  assert.equal(state.kind, 'bad');
  assert.match(state.text, /only while the input is empty/);
  assert.equal(checkMessage('sendButton', { count: 1, visible: 1, empty: 1, withText: 1 }, '.send').kind, 'ok');
  const shown = checkMessage('sendButton', { count: 0, visible: 0, empty: 0, withText: 1 }, '.send');
  assert.deepEqual(shown, { text: '✓ matches 1 element once the input holds text (.send)', kind: 'ok' });
  assert.equal(checkMessage('sendButton', { count: 0, visible: 0 }, '.send').kind, '', 'not probed: as before');
});
