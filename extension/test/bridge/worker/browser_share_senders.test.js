// Only the person shares a tab: the share control's messages are taken from
// the extension's own pages (the side panel, Firefox's sidebar), never from a
// content script (which a page can talk to), the Page Assistant's frame (an
// extension page a web page embeds) or anything untrusted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { route, senderKind } from '../../../shared/core/router.js';
import { BROWSER_SHARE } from '../../../shared/core/messages.js';

const ID = 'mbegimjagonemgohdcndepbpfbmlmgdd';
const ORIGIN = `chrome-extension://${ID}`;

async function bridgeHandlers() {
  const inert = new Proxy(function () {}, {
    get: (target, prop) => (prop === 'then' ? undefined : inert),
    apply: () => inert,
  });
  const saved = globalThis.chrome;
  globalThis.chrome = inert;
  try {
    return (await import('../../../bridge/worker/bridge_worker.js')).handlers;
  } finally {
    globalThis.chrome = saved;
  }
}

test('sharing a tab, or reading what is shared, is the extension\'s pages\' business only', async () => {
  const handlers = await bridgeHandlers();
  const content = senderKind({ id: ID, url: 'https://shop.example/form', tab: { id: 9, url: 'https://shop.example/form' } }, ID, ORIGIN);
  const frame = senderKind({ id: ID, url: `${ORIGIN}/agent/frame/page_assistant_frame.html`, tab: { id: 9, url: 'https://shop.example/form' } }, ID, ORIGIN);
  const panel = senderKind({ id: ID, url: `${ORIGIN}/agent/panel/sidepanel.html` }, ID, ORIGIN);
  assert.equal(panel, 'extension');
  for (const type of Object.values(BROWSER_SHARE)) {
    const m = { type, tabId: 9, origin: 'https://chat.example', share: true };
    assert.equal(handlers[type]?.from, 'extension', type);
    assert.match(route(handlers, m, content).error, /is not accepted from content/, type);
    assert.match(route(handlers, m, frame).error, /is not accepted from frame/, type);
    assert.match(route(handlers, m, null).error, /not trusted/, type);
    assert.ok(route(handlers, m, panel).handler, type);
  }
});
