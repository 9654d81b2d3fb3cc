import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AGENT_NEEDS_CHROMIUM, features } from '../../shared/browser.js';

const fn = () => {};

test('Chromium offers the debugger and the side panel: the browser agent can run', () => {
  const chrome = { debugger: { attach: fn }, sidePanel: {}, runtime: { getURL: (p) => `chrome-extension://abc/${p}` } };
  assert.deepEqual(features(chrome), { debugger: true, sidePanel: true, sidebar: false, agent: true, firefox: false });
});

test('Firefox has a sidebar but no debugger: the browser agent cannot run', () => {
  const browser = { sidebarAction: {}, runtime: { getURL: (p) => `moz-extension://1234/${p}` } };
  assert.deepEqual(features(browser), { debugger: false, sidePanel: false, sidebar: true, agent: false, firefox: true });
});

test('a debugger namespace without attach does not count', () => {
  assert.equal(features({ debugger: {} }).agent, false);
  assert.equal(features({ debugger: null }).agent, false);
  assert.equal(features(undefined).agent, false);
});

test('the notice names what is missing and what still works', () => {
  for (const part of ['Chromium browser', 'chrome.debugger', 'chat bridge']) assert.ok(AGENT_NEEDS_CHROMIUM.includes(part), part);
});
