// Grants and approvals are changed only from the extension's own pages: the
// worker's handlers that read or write an origin's grants, arm it with grants,
// answer an approval (and remember the answer for the session or always),
// forget remembered choices, or read, clear or add to the activity log are
// all `from: 'extension'`, so router.js refuses
// them to a content script (which any web page can talk to through the
// bridge's messages) and to anything untrusted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { route, senderKind } from '../../../shared/core/router.js';
import { BROWSER_SHARE } from '../../../shared/core/messages.js';

const ID = 'mbegimjagonemgohdcndepbpfbmlmgdd';
const ORIGIN = `chrome-extension://${ID}`;

/** The bridge's real handler map; chrome.* is an inert stand-in, only the map is used. */
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

const GRANT_TYPES = ['bridge.getGrants', 'bridge.setGrants', 'bridge.start', 'bridge.approval', 'bridge.approve',
  'bridge.remembered', 'bridge.forgetChoices', 'activity.list', 'activity.clear', 'activity.task'];

test('grant and approval messages are accepted from the extension\'s pages only', async () => {
  const handlers = await bridgeHandlers();
  const contentScript = senderKind({ id: ID, url: 'https://chat.example.com/c/1', tab: { id: 9, url: 'https://chat.example.com/c/1' } }, ID, ORIGIN);
  const optionsPage = senderKind({ id: ID, url: `${ORIGIN}/bridge/options/options.html`, tab: { id: 3, url: `${ORIGIN}/bridge/options/options.html` } }, ID, ORIGIN);
  const approvalWindow = senderKind({ id: ID, url: `${ORIGIN}/bridge/approval/approve.html?token=x`, tab: { id: 4, windowId: 8, url: `${ORIGIN}/bridge/approval/approve.html?token=x` } }, ID, ORIGIN);
  assert.equal(contentScript, 'content');
  assert.equal(optionsPage, 'extension');
  assert.equal(approvalWindow, 'extension');
  for (const type of GRANT_TYPES) {
    assert.equal(handlers[type]?.from, 'extension', type);
    assert.match(route(handlers, { type, origin: 'https://chat.example.com', grants: { 'computer.click': 'allow' } }, contentScript).error,
      /is not accepted from content/, type);
    assert.match(route(handlers, { type }, null).error, /not trusted/, type);
    assert.ok(route(handlers, { type }, optionsPage).handler, type);
  }
  // What a content script may send: delivery reports and the person's own messages (replies go over the call port).
  const fromContent = Object.entries(handlers).filter(([, h]) => h.from !== 'extension').map(([type]) => type).sort();
  assert.deepEqual(fromContent, ['bridge.human', 'bridge.report']);
});

// The setup page's messages: adding a program for the host to run, reading the
// diagnostic report or the download location are extension pages' business only.
const SETUP_TYPES = ['bridge.providers', 'bridge.setProvider', 'bridge.removeProvider', 'bridge.checkProvider', 'bridge.cancelCheck',
  'bridge.diagnosticReport', 'bridge.getDownloadLocation', 'bridge.setDownloadLocation'];

test('the setup page\'s messages (MCP servers, report, download location) are accepted from the extension\'s pages only', async () => {
  const handlers = await bridgeHandlers();
  const contentScript = senderKind({ id: ID, url: 'https://chat.example.com/c/1', tab: { id: 9, url: 'https://chat.example.com/c/1' } }, ID, ORIGIN);
  const pageAssistantFrame = senderKind({ id: ID, url: `${ORIGIN}/agent/frame/page_assistant_frame.html`, tab: { id: 9, url: 'https://chat.example.com/c/1' } }, ID, ORIGIN);
  const setupPage = senderKind({ id: ID, url: `${ORIGIN}/bridge/setup/setup.html`, tab: { id: 3, url: `${ORIGIN}/bridge/setup/setup.html` } }, ID, ORIGIN);
  assert.equal(setupPage, 'extension');
  for (const type of SETUP_TYPES) {
    assert.equal(handlers[type]?.from, 'extension', type);
    assert.match(route(handlers, { type, provider: { name: 'x', command: '/bin/sh' } }, contentScript).error, /is not accepted from content/, type);
    assert.match(route(handlers, { type }, pageAssistantFrame).error, /is not accepted from frame/, type);
    assert.ok(route(handlers, { type }, setupPage).handler, type);
  }
});

// Only the person shares a tab with a chat site: the share control's messages
// come from the side panel or Firefox's sidebar, never from a content script
// (which a page can talk to) or the Page Assistant's frame (which a page embeds).
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
