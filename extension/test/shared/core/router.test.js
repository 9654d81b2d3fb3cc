import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeHandlers, route, senderKind } from '../../../shared/core/router.js';

const ID = 'mbegimjagonemgohdcndepbpfbmlmgdd';
const ORIGIN = `chrome-extension://${ID}`;

test('senders are classified as our pages, our content scripts, our pages embedded in web tabs, or untrusted', () => {
  const table = [
    ['options page tab', { id: ID, url: `${ORIGIN}/bridge/options/options.html#activity`, frameId: 0, tab: { id: 3, url: `${ORIGIN}/bridge/options/options.html#activity` } }, 'extension'],
    ['setup page tab', { id: ID, url: `${ORIGIN}/bridge/setup/setup.html`, tab: { id: 3, url: `${ORIGIN}/bridge/setup/setup.html` } }, 'extension'],
    ['approval window', { id: ID, url: `${ORIGIN}/bridge/approval/approve.html?token=ab`, frameId: 0, tab: { id: 4, url: `${ORIGIN}/bridge/approval/approve.html?token=ab` } }, 'extension'],
    ['side panel (no tab)', { id: ID, url: `${ORIGIN}/agent/panel/sidepanel.html` }, 'extension'],
    ['a path that is not one of our pages', { id: ID, url: `${ORIGIN}/options.html`, tab: { id: 3, url: `${ORIGIN}/options.html` } }, null],
    ['our page inside a frame of our own tab', { id: ID, url: `${ORIGIN}/bridge/options/options.html`, frameId: 2, tab: { id: 3, url: `${ORIGIN}/bridge/setup/setup.html` } }, null],
    ['our page in a tab whose top is not ours', { id: ID, url: `${ORIGIN}/bridge/options/options.html`, frameId: 0, tab: { id: 3, url: 'about:blank' } }, null],
    ['our frame in an about:blank popup a page opened', { id: ID, url: `${ORIGIN}/agent/frame/page_assistant_frame.html`, frameId: 1, tab: { id: 12, url: 'about:blank' } }, 'frame'],
    ['our frame in a blob: tab', { id: ID, url: `${ORIGIN}/agent/frame/page_assistant_frame.html`, frameId: 1, tab: { id: 13, url: 'blob:https://evil.example/5d1c' } }, 'frame'],
    ['our frame opened as a tab of its own', { id: ID, url: `${ORIGIN}/agent/frame/page_assistant_frame.html`, frameId: 0, tab: { id: 14, url: `${ORIGIN}/agent/frame/page_assistant_frame.html` } }, 'frame'],
    ['our frame, its path spelled with a query', { id: ID, url: `${ORIGIN}/agent/frame/page_assistant_frame.html?x=/bridge/options/options.html`, tab: { id: 14, url: 'about:blank' } }, 'frame'],
    ['content script', { id: ID, url: 'https://chat.example.com/c/1', tab: { id: 9, url: 'https://chat.example.com/c/1' } }, 'content'],
    ['content script on http', { id: ID, url: 'http://127.0.0.1:8080/', tab: { id: 9, url: 'http://127.0.0.1:8080/' } }, 'content'],
    ['another extension', { id: 'otherextensionidotherextensionid', url: 'chrome-extension://otherextensionidotherextensionid/x.html' }, null],
    ['no sender', undefined, null],
    ['our id but a file page', { id: ID, url: 'file:///x.html', tab: { id: 1, url: 'file:///x.html' } }, null],
    ['lookalike origin', { id: ID, url: `${ORIGIN}.evil.com/x`, tab: { id: 1, url: `${ORIGIN}.evil.com/x` } }, null],
    ['our frame in an https tab', { id: ID, url: `${ORIGIN}/agent/frame/page_assistant_frame.html`, frameId: 5, tab: { id: 9, url: 'https://bank.example/' } }, 'frame'],
    ['our frame in an http tab', { id: ID, url: `${ORIGIN}/agent/frame/page_assistant_frame.html`, frameId: 5, tab: { id: 9, url: 'http://127.0.0.1:8080/x' } }, 'frame'],
    ['our frame in a tab without an id', { id: ID, url: `${ORIGIN}/agent/frame/page_assistant_frame.html`, tab: { url: 'https://bank.example/' } }, null],
    ['another extension\'s frame in a web tab', { id: 'otherextensionidotherextensionid', url: 'chrome-extension://otherextensionidotherextensionid/f.html', tab: { id: 9, url: 'https://bank.example/' } }, null],
    ['a lookalike origin in a web tab', { id: ID, url: `${ORIGIN}.evil.com/f.html`, tab: { id: 9, url: 'https://bank.example/' } }, null],
  ];
  for (const [name, sender, want] of table) assert.equal(senderKind(sender, ID, ORIGIN), want, name);
  const fx = 'moz-extension://0f1e2d3c-aaaa';
  assert.equal(senderKind({ id: 'gnosis@gnosis.dev', url: `${fx}/firefox/sidebar.html` }, 'gnosis@gnosis.dev', fx), 'extension', 'the Firefox sidebar');
  assert.equal(senderKind({ id: 'gnosis@gnosis.dev', url: `${fx}/agent/frame/page_assistant_frame.html`, tab: { id: 2, url: 'about:blank' } }, 'gnosis@gnosis.dev', fx), 'frame', 'the frame in Firefox');
});

test('route finds the handler and enforces where it may be called from', () => {
  const handlers = {
    'bridge.start': { from: 'extension', run() {} },
    'bridge.extracted': { from: 'content', run() {} },
    'agent.pageTask': { from: 'frame', run() {} },
    ping: { from: 'any', run() {} },
  };
  assert.ok(route(handlers, { type: 'agent.pageTask' }, 'frame').handler);
  assert.match(route(handlers, { type: 'agent.pageTask' }, 'content').error, /not accepted from content/);
  assert.match(route(handlers, { type: 'agent.pageTask' }, 'extension').error, /not accepted from extension/);
  assert.match(route(handlers, { type: 'bridge.start' }, 'frame').error, /not accepted from frame/);
  assert.match(route(handlers, { type: 'bridge.extracted' }, 'frame').error, /not accepted from frame/);
  assert.ok(route(handlers, { type: 'bridge.start' }, 'extension').handler);
  assert.match(route(handlers, { type: 'bridge.start' }, 'content').error, /not accepted from content/);
  assert.match(route(handlers, { type: 'bridge.extracted' }, 'extension').error, /not accepted from extension/);
  assert.ok(route(handlers, { type: 'ping' }, 'content').handler);
  assert.match(route(handlers, { type: 'ping' }, null).error, /not trusted/);
  assert.match(route(handlers, { type: 'toString' }, 'extension').error, /unknown message type/);
  assert.match(route(handlers, { type: 'nope' }, 'extension').error, /unknown message type/);
  assert.match(route(handlers, null, 'extension').error, /string type/);
  assert.match(route(handlers, { type: 5 }, 'extension').error, /string type/);
});

test('mergeHandlers joins the feature maps and refuses a type claimed twice or a malformed handler', () => {
  const a = { 'a.one': { from: 'extension', run() {} } };
  const b = { 'b.one': { from: 'content', run() {} }, 'b.two': { from: 'frame', run() {} } };
  assert.deepEqual(Object.keys(mergeHandlers(a, b)).sort(), ['a.one', 'b.one', 'b.two']);
  assert.throws(() => mergeHandlers(a, { 'a.one': { from: 'any', run() {} } }), /two handlers for message type a.one/);
  assert.throws(() => mergeHandlers({ x: { from: 'page', run() {} } }), /needs run\(\) and from/);
  assert.throws(() => mergeHandlers({ x: { from: 'any' } }), /needs run\(\) and from/);
});

test('the worker\'s feature maps have no clashing message types', async () => {
  // The real maps: importing them touches chrome.* at module level, so a stand-in that
  // answers every property and call with itself lets them load; only keys and shapes are checked.
  const inert = new Proxy(function () {}, {
    get: (target, prop) => (prop === 'then' ? undefined : inert),
    apply: () => inert,
  });
  const saved = globalThis.chrome;
  globalThis.chrome = inert;
  try {
    const maps = [];
    for (const name of ['../../../bridge/worker/bridge_worker.js', '../../../agent/worker/agent_worker.js', '../../../agent/worker/page_assistant_worker.js']) {
      maps.push((await import(name)).handlers);
    }
    const merged = mergeHandlers(...maps);
    assert.ok(Object.keys(merged).length >= maps.length);
    // A task reaches the agent only from the Page Assistant's frame: never from a content script, whose page may be hostile.
    assert.equal(merged['agent.pageTask'].from, 'frame');
    assert.equal(merged['agent.pageStop'].from, 'frame');
    assert.equal(merged['pageAssistant.relay'].from, 'extension');
  } finally {
    globalThis.chrome = saved;
  }
});
