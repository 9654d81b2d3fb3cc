// The table of shared tabs (bridge/core/browser_shares.js) and what the share control shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isShared, readShares, share, shareView, siteName, sitesOf, tabsSharedWith, unshare } from '../../../bridge/core/browser_shares.js';
import { shareVerdict } from '../../../bridge/core/tab_eligibility.js';

const A = 'https://chat.example';
const B = 'http://127.0.0.1:8000';

test('share, list and unshare: per tab and per site, in the order shared', () => {
  let t = share({}, 7, A, 100);
  t = share(t, 5, A, 200);
  t = share(t, 7, B, 300);
  t = share(t, 7, A, 400); // already shared: unchanged
  assert.deepEqual(sitesOf(t, 7), [A, B]);
  assert.deepEqual(tabsSharedWith(t, A), [7, 5]);
  assert.deepEqual(tabsSharedWith(t, B), [7]);
  assert.equal(isShared(t, 5, B), false);
  t = unshare(t, 7, A);
  assert.deepEqual(sitesOf(t, 7), [B]);
  t = unshare(t, 7);
  assert.deepEqual(sitesOf(t, 7), []);
  assert.deepEqual(Object.keys(t), ['5']);
});

test('a malformed table (storage is data) reads as the part that is well formed', () => {
  assert.deepEqual(readShares({ 7: [{ origin: A, at: 1 }, { origin: 5 }, null], x: [{ origin: A, at: 1 }], 8: 'no' }), { 7: [{ origin: A, at: 1 }] });
  assert.deepEqual(readShares(null), {});
  assert.deepEqual(readShares([1]), {});
});

test('the share control: each armed site, shared or not, and why a tab cannot be shared', () => {
  const t = share({}, 7, A, 1);
  const shop = { id: 7, url: 'https://shop.example/' };
  assert.deepEqual(shareView(shop, [B, A], t, shareVerdict), {
    tabId: 7,
    sites: [
      { origin: B, name: '127.0.0.1:8000', shared: false, armed: true },
      { origin: A, name: 'chat.example', shared: true, armed: true },
    ].sort((x, y) => x.origin.localeCompare(y.origin)),
  });
  const settings = shareView({ id: 8, url: 'chrome://settings' }, [A], t, shareVerdict);
  assert.equal(settings.sites[0].shared, false);
  assert.match(settings.sites[0].why, /a page of the browser itself/);
  // Shared with a site since stopped: still listed, so the share can be ended.
  assert.deepEqual(shareView(shop, [], t, shareVerdict).sites.map((s) => [s.origin, s.shared, s.armed]), [[A, true, false]]);
  assert.deepEqual(shareView(null, [A], t, shareVerdict), { tabId: null, sites: [] });
  assert.equal(siteName('https://chat.example'), 'chat.example');
});
