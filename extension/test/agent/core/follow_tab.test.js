// A tab the page opens during a task is followed only to an http(s) page
// (issue 29 item 5); anything else is refused in words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { followVerdict, shownAddress, stillBlank, tabAddress } from '../../../agent/core/follow_tab.js';

test('http and https tabs are followed, by the address they are going to', () => {
  assert.deepEqual(followVerdict({ url: 'https://example.com/a' }), { follow: true });
  assert.deepEqual(followVerdict({ url: '', pendingUrl: 'http://127.0.0.1:8080/x' }), { follow: true });
  assert.deepEqual(followVerdict({ url: 'HTTPS://EXAMPLE.COM/' }), { follow: true });
});

test('every other kind of tab is refused, and the note names it and says the agent stays', () => {
  for (const url of ['about:blank', '', 'blob:http://127.0.0.1:8080/5d1c-aa', 'data:text/html,<p>hi</p>', 'file:///etc/passwd',
    'chrome://settings/', 'chrome-extension://abc/page.html', 'javascript:alert(1)', 'view-source:https://example.com/', 'httpx://example.com/']) {
    const v = followVerdict({ url });
    assert.equal(v.follow, false, url);
    assert.match(v.note, /controls only http:\/\/ or https:\/\/ pages, so it did not follow it and stays on this tab/, url);
    assert.ok(v.note.includes(shownAddress(url)), url);
  }
  assert.match(followVerdict(null).note, /closed at once/);
});

test('a blank new tab is waited for; long addresses are shortened', () => {
  assert.equal(stillBlank({ url: '' }), true);
  assert.equal(stillBlank({ url: 'about:blank' }), true);
  assert.equal(stillBlank({ url: 'about:blank', pendingUrl: 'https://x.example/' }), false);
  assert.equal(tabAddress({ url: 'a', pendingUrl: 'b' }), 'b');
  const long = 'data:text/html,' + 'x'.repeat(500);
  assert.equal(shownAddress(long).length, 80);
  assert.equal(shownAddress(''), 'about:blank');
});
