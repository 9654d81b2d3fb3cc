// The browser agent's requests from its Side Panel (agent/core/panel_contract.js):
// attach to a tab, observe it (screenshot + viewport), act on it, detach.
// The looking and acting are the tab engine's (shared/tab_driver.js), which
// the chat bridge's browser.* capabilities drive too; this module keeps what
// is the agent's: its session's tab, the tabs it follows, the notes for the
// next request. The handlers accept only this extension's pages.

import { captureTab, runAction } from '../../shared/tab_driver.js';
import { readAct, readAttach, reply } from '../core/panel_contract.js';
import { attach, detach, findSession, HOLD_MAX_MS, mustSession, switchTo } from './agent_sessions.js';
import { AGENT } from '../../shared/core/messages.js';
import { BLANK_GRACE_MS, followVerdict, stillBlank } from '../core/follow_tab.js';
import { releaseWhatWasLeft } from '../../shared/tab_held_input.js';

/** What a stopped worker left (pressed buttons, a debugger attachment), released once at start-up before any attach. */
let leftReleased = Promise.resolve();

/** At the worker's start: releases what a stopped worker's action held and its attachments (shared/tab_held_input.js). */
export function releaseLeftovers() {
  leftReleased = releaseWhatWasLeft().catch(() => {});
}

const isWeb = (url) => /^https?:\/\//i.test(url || '');

async function pickTab(windowId, tabId) {
  if (tabId !== undefined) {
    const t = await chrome.tabs.get(tabId);
    if (!isWeb(t.url)) throw new Error('the agent can only control http:// or https:// pages');
    return t;
  }
  const tabs = (await chrome.tabs.query(windowId !== undefined ? { windowId } : { lastFocusedWindow: true })).filter((t) => isWeb(t.url));
  if (tabs.length === 0) throw new Error('Open the web page (http:// or https://) you want the agent to work on in this window, then run the task again.');
  const active = tabs.find((t) => t.active);
  if (active) return active;
  return tabs.reduce((a, b) => ((b.lastAccessed || 0) > (a.lastAccessed || 0) ? b : a));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function currentUrl(s) {
  const t = await chrome.tabs.get(s.tabId).catch(() => null);
  return t ? (t.pendingUrl || t.url || '') : '';
}

// Waits briefly for navigation caused by an action, and follows a tab it opened.
async function settle(s, minMs = 350) {
  await sleep(minMs);
  // Only while attached: a Stop during the wait must not attach again.
  if (s.attached && s.follow !== undefined && s.follow !== s.tabId) await follow(s, s.follow);
  s.follow = undefined;
  for (let i = 0; i < 80; i++) {
    const t = await chrome.tabs.get(s.tabId).catch(() => null);
    if (!t || t.status === 'complete') return;
    await sleep(100);
  }
}

// Follows a tab the page opened, once its address is known, only to an http(s) page (core/follow_tab.js).
async function follow(s, tabId) {
  let tab = await chrome.tabs.get(tabId).catch(() => null);
  for (let waited = 0; tab && stillBlank(tab) && waited < BLANK_GRACE_MS; waited += 100) {
    await sleep(100);
    tab = await chrome.tabs.get(tabId).catch(() => null);
  }
  const verdict = followVerdict(tab);
  if (verdict.follow) await switchTo(s, tabId);
  else s.followRefused = verdict.note;
}

function ensureAttached(s) {
  if (!s.attached) throw new Error(s.detachReason ? `the debugger was detached (${s.detachReason})` : 'the debugger is not attached');
}

async function observe(s) {
  ensureAttached(s);
  await settle(s, 0);
  if (s.holds.size) await Promise.race([Promise.all([...s.holds]), sleep(HOLD_MAX_MS)]);
  const shot = await captureTab(s.tabId);
  const tab = await chrome.tabs.get(s.tabId);
  const notes = s.notes.splice(0);
  if (s.followRefused) notes.push(s.followRefused);
  s.followRefused = undefined;
  return { ...shot, url: tab.url, title: tab.title, tabId: s.tabId, notes };
}

// A tab created in the task's window while an action runs (or just after) was
// opened by it: links with target=_blank carry no opener id under noopener.
const FOLLOW_WINDOW_MS = 1500;

// How long agent.detach waits for an aborted action to release what it holds
// (a pressed mouse button) before the debugger goes. The panel has shown the
// outcome already: this is cleanup after it.
const ABORT_GRACE_MS = 150;

async function act(s, { action, coordinateMode, step }) {
  ensureAttached(s);
  s.actingUntil = Infinity;
  const abort = new AbortController();
  s.actionAbort = abort;
  const running = runAction({
    tabOf: () => s.tabId,
    action,
    signal: abort.signal,
    coordinateMode,
    currentUrl: () => currentUrl(s),
    settle: () => settle(s),
    openTab: async (url) => {
      const t = await chrome.tabs.create({ url, windowId: s.windowId, openerTabId: s.tabId, active: true });
      ensureAttached(s);
      await switchTo(s, t.id);
    },
    extra: { sessionId: s.id, step },
  });
  s.acting = running.catch(() => {});
  try {
    const result = await running;
    const refused = s.followRefused;
    s.followRefused = undefined;
    return refused && result ? { ...result, text: `${result.text}. ${refused}` } : result;
  } finally {
    s.acting = null;
    if (s.actionAbort === abort) s.actionAbort = null;
    s.actingUntil = Date.now() + FOLLOW_WINDOW_MS;
  }
}

/** Stops the action in flight, giving it a moment to release the mouse. */
export async function abortAction(s) {
  s.actionAbort?.abort();
  if (s.acting) await Promise.race([s.acting, sleep(ABORT_GRACE_MS)]);
}

/** Message handlers in shared/core/router.js's shape. */
export const handlers = {
  [AGENT.ATTACH]: {
    from: 'extension',
    async run(m) {
      const a = readAttach(m);
      const s = mustSession(a.sessionId);
      await leftReleased;
      if (s.attached) await detach(s);
      let tab;
      if (a.resume && s.tabId !== undefined) tab = await chrome.tabs.get(s.tabId).catch(() => null);
      // An answer after the panel was reopened continues on the tab the question was asked on, if it is still open.
      if ((!tab || !isWeb(tab.url)) && a.preferTabId !== undefined) tab = await chrome.tabs.get(a.preferTabId).catch(() => null);
      if (!tab || !isWeb(tab.url)) tab = await pickTab(a.windowId ?? s.windowId, a.tabId);
      s.windowId = tab.windowId;
      s.detachReason = undefined;
      await attach(s, tab.id);
      return reply.attached(tab);
    },
  },
  [AGENT.OBSERVE]: {
    from: 'extension',
    async run(m) {
      return reply.observed(await observe(mustSession(m.sessionId)));
    },
  },
  [AGENT.ACT]: {
    from: 'extension',
    async run(m) {
      const a = readAct(m);
      return reply.acted(await act(mustSession(a.sessionId), a));
    },
  },
  [AGENT.DETACH]: {
    from: 'extension',
    async run(m) {
      const s = findSession(m.sessionId);
      if (s) await abortAction(s);
      if (s) await detach(s);
      return reply.detached();
    },
  },
};
