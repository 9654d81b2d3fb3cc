import assert from 'node:assert/strict';
import { test } from 'node:test';
import { route, senderKind } from '../router.js';

const ID = 'mbegimjagonemgohdcndepbpfbmlmgdd';
const ORIGIN = `chrome-extension://${ID}`;

test('senders are classified as our pages, our content scripts, or untrusted', () => {
  const table = [
    ['options page tab', { id: ID, url: `${ORIGIN}/options.html`, tab: { id: 3, url: `${ORIGIN}/options.html` } }, 'extension'],
    ['side panel (no tab)', { id: ID, url: `${ORIGIN}/sidepanel.html` }, 'extension'],
    ['content script', { id: ID, url: 'https://chat.example.com/c/1', tab: { id: 9, url: 'https://chat.example.com/c/1' } }, 'content'],
    ['content script on http', { id: ID, url: 'http://127.0.0.1:8080/', tab: { id: 9, url: 'http://127.0.0.1:8080/' } }, 'content'],
    ['another extension', { id: 'otherextensionidotherextensionid', url: 'chrome-extension://otherextensionidotherextensionid/x.html' }, null],
    ['no sender', undefined, null],
    ['our id but a file page', { id: ID, url: 'file:///x.html', tab: { id: 1, url: 'file:///x.html' } }, null],
    ['lookalike origin', { id: ID, url: `${ORIGIN}.evil.com/x`, tab: { id: 1, url: `${ORIGIN}.evil.com/x` } }, null],
  ];
  for (const [name, sender, want] of table) assert.equal(senderKind(sender, ID, ORIGIN), want, name);
});

test('route finds the handler and enforces where it may be called from', () => {
  const handlers = {
    'bridge.start': { from: 'extension', run() {} },
    'bridge.extracted': { from: 'content', run() {} },
    ping: { from: 'any', run() {} },
  };
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
