// Which tabs a chat site's browser.* calls may use, and which can be shared
// at all (bridge/core/tab_eligibility.js), with the words each refusal says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REFUSED, callVerdict, shareVerdict, webOrigin } from '../../../bridge/core/tab_eligibility.js';

const CHAT = 'https://chat.example';

const shareCases = [
  // [address, reason or null when it can be shared]
  ['https://shop.example/cart', null],
  ['http://127.0.0.1:8000/form.html', null],
  ['https://chat.example/c/42', REFUSED.CHAT_SITE],
  ['https://chat.example:8443/', null],
  ['chrome://settings', REFUSED.BROWSER_PAGE],
  ['edge://extensions', REFUSED.BROWSER_PAGE],
  ['about:blank', REFUSED.BROWSER_PAGE],
  ['view-source:https://shop.example/', REFUSED.BROWSER_PAGE],
  ['devtools://devtools/bundled/inspector.html', REFUSED.BROWSER_PAGE],
  ['chrome-extension://abcdefghijklmnop/options.html', REFUSED.EXTENSION_PAGE],
  ['moz-extension://0000-1111/page.html', REFUSED.EXTENSION_PAGE],
  ['https://chromewebstore.google.com/detail/x/abc', REFUSED.STORE],
  ['https://chrome.google.com/webstore/detail/abc', REFUSED.STORE],
  ['https://chrome.google.com/search', null],
  ['https://microsoftedge.microsoft.com/addons/detail/x', REFUSED.STORE],
  ['https://addons.mozilla.org/en-US/firefox/addon/x/', REFUSED.STORE],
  ['file:///home/me/notes.txt', REFUSED.NOT_WEB],
  ['data:text/html,<b>x</b>', REFUSED.NOT_WEB],
  ['blob:https://shop.example/1234', REFUSED.NOT_WEB],
  ['javascript:alert(1)', REFUSED.NOT_WEB],
];

for (const [url, reason] of shareCases) {
  test(`share ${url} with ${CHAT}: ${reason || 'yes'}`, () => {
    const v = shareVerdict({ id: 5, url }, CHAT);
    if (reason === null) assert.deepEqual(v, { ok: true });
    else {
      assert.equal(v.reason, reason);
      assert.match(v.message, /^This tab /);
    }
  });
}

test('a tab still going to its address is judged by where it goes, too', () => {
  assert.equal(shareVerdict({ id: 1, url: 'https://shop.example/', pendingUrl: 'chrome://downloads' }, CHAT).reason, REFUSED.BROWSER_PAGE);
  assert.equal(shareVerdict({ id: 1, url: '' }, CHAT).reason, REFUSED.NOT_WEB);
  assert.equal(shareVerdict(null, CHAT).reason, REFUSED.NO_TAB);
});

test('the refusals say why in words', () => {
  assert.equal(shareVerdict({ url: 'chrome://settings' }, CHAT).message, 'This tab shows a page of the browser itself (chrome://settings); the browser\'s own pages are never shared.');
  assert.equal(shareVerdict({ url: 'https://chat.example/x' }, CHAT).message, 'This tab shows the chat site itself (https://chat.example); a chat site is never handed its own pages.');
  assert.equal(shareVerdict({ url: 'https://chromewebstore.google.com/' }, CHAT).message, 'This tab shows the browser\'s extension store (chromewebstore.google.com), where the browser lets no extension act.');
});

test('a call: the chat\'s own tab, then a tab not shared (or not there) in the same words, then where the shared tab is now', () => {
  const shop = { id: 9, url: 'https://shop.example/' };
  assert.deepEqual(callVerdict({ tabId: 9, tab: shop, origin: CHAT, chatTabId: 3, shared: true }), { ok: true });
  const own = callVerdict({ tabId: 3, tab: { id: 3, url: 'https://chat.example/c/1' }, origin: CHAT, chatTabId: 3, shared: true });
  assert.equal(own.reason, REFUSED.CHAT_TAB);
  assert.match(own.message, /^tab 3 is this chat's own tab/);
  const unshared = callVerdict({ tabId: 9, tab: shop, origin: CHAT, chatTabId: 3, shared: false });
  const missing = callVerdict({ tabId: 9, tab: null, origin: CHAT, chatTabId: 3, shared: false });
  assert.equal(unshared.reason, REFUSED.NOT_SHARED);
  assert.deepEqual(missing, unshared, 'a tab that is not there reads as one that is not shared');
  assert.match(unshared.message, /only the user can share a tab, with "Share with https:\/\/chat.example"/);
  const secret = callVerdict({ tabId: 4, tab: { id: 4, url: 'chrome://settings/passwords' }, origin: CHAT, chatTabId: 3, shared: false });
  assert.equal(secret.reason, REFUSED.NOT_SHARED);
  assert.doesNotMatch(secret.message, /chrome:|settings|passwords/, 'nothing about a tab that is not shared');
  const moved = callVerdict({ tabId: 9, tab: { id: 9, url: 'chrome://version' }, origin: CHAT, chatTabId: 3, shared: true });
  assert.equal(moved.reason, REFUSED.BROWSER_PAGE);
  assert.match(moved.message, /^tab 9 is shared with this chat but shows a page of the browser itself \(chrome:\/\/version\)/);
});

test('webOrigin', () => {
  assert.equal(webOrigin('https://a.example:8443/x?y'), 'https://a.example:8443');
  assert.equal(webOrigin('chrome://settings'), '');
  assert.equal(webOrigin('not a url'), '');
});
