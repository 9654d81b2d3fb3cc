// The browser agent's half of the service worker: it owns chrome.debugger.
//
// The loop itself runs in the Side Panel (core/agent_session.js); it asks this
// module to attach to a tab, observe it (screenshot + viewport) and act on it.
// Each panel holds a runtime port named 'agent'; when the port disconnects
// (panel closed, reloaded) the debugger is detached at once. Tabs opened by
// the attached tab (links with target=_blank, window.open) or by Launch are
// followed. Handlers accept only this extension's pages. The Page
// Assistant's tasks and controls reach the open panel of their window
// through toPanel(), from page_assistant_worker.js, which accepts them only
// from the bar's frame its content script placed. The Side Panel's host
// methods (relay.fetch, workspace.*) arrive on their own port and run on the
// one native client (shared/host_proxy.js); Upload and Download are
// transfer_worker.js, wired from init().

import { host } from '../../shared/host.js';
import { serveProxiedPort } from '../../shared/host_proxy.js';
import { execute, viewportFromMetrics } from './executor.js';
import { platformOf } from '../core/hotkey.js';
import { initTransfers } from './transfer_worker.js';
import { AGENT, AGENT_PORT, PORTS } from '../../shared/core/messages.js';
import { senderKind } from '../../shared/core/router.js';
import { BLANK_GRACE_MS, followVerdict, stillBlank } from '../core/follow_tab.js';
import { actionEnded, releaseWhatWasLeft, trackingSend } from './held_input.js';

const PROTOCOL = '1.3';
/** sessionId -> {port, windowId, tabId, attached, follow} */
const sessions = new Map();
const cdpListeners = new Set();
const attachListeners = new Set();
let platform = 'linux';
/** What a stopped worker left (pressed buttons, a debugger attachment), released once at start-up before any attach. */
let leftReleased = Promise.resolve();

/**
 * Subscribes to CDP events of attached tabs (the file transfers: Page.fileChooserOpened).
 * @param {(event:{sessionId:string, tabId:number, method:string, params:object}) => void} fn
 * @returns {() => void} unsubscribe
 */
export function onCdpEvent(fn) {
  cdpListeners.add(fn);
  return () => cdpListeners.delete(fn);
}

/**
 * Subscribes to every attach, including to tabs the task follows, so the file
 * transfers can enable Page.setInterceptFileChooserDialog on each.
 * @param {(event:{sessionId:string, tabId:number}) => void|Promise<void>} fn
 * @returns {() => void} unsubscribe
 */
export function onAttach(fn) {
  attachListeners.add(fn);
  return () => attachListeners.delete(fn);
}

/**
 * Queues a line for the session's next model request (the workspace
 * inventory after a file chooser opened, a download that is waiting for a name).
 */
export function addNote(sessionId, text) {
  mustSession(sessionId).notes.push(String(text));
}

/** Longest an observation waits for work that will queue a note (a download being read). */
const HOLD_MAX_MS = 15000;

/**
 * Makes the session's next observation wait (at most HOLD_MAX_MS) until
 * promise settles, so a note it queues (a download the page built, still
 * being read) reaches the very next request.
 */
export function holdObservation(sessionId, promise) {
  const s = sessions.get(String(sessionId));
  if (!s) return;
  const p = Promise.resolve(promise).catch(() => {}).finally(() => s.holds.delete(p));
  s.holds.add(p);
}

/**
 * True while the session's action runs or has just run (FOLLOW_WINDOW_MS):
 * what the page does then (a new tab, a download) is the action's doing.
 */
export function actingRecently(sessionId) {
  const s = sessions.get(String(sessionId));
  return Boolean(s && (s.acting || (s.actingUntil || 0) > Date.now()));
}

/** The session whose task currently controls tabId, if any: {sessionId, windowId}. */
export function sessionForTab(tabId) {
  for (const [sessionId, s] of sessions) if (s.attached && s.tabId === tabId) return { sessionId, windowId: s.windowId };
  return null;
}

const panelListeners = new Set();

/**
 * Subscribes to Side Panels connecting and disconnecting (the Page Assistant
 * shows its bar only while a panel is open in the page's window).
 * @param {(windowId:number) => void} fn
 * @returns {() => void} unsubscribe
 */
export function onPanelChange(fn) {
  panelListeners.add(fn);
  return () => panelListeners.delete(fn);
}

const endListeners = new Set();

/**
 * Subscribes to the end of a panel's session (its port disconnected), so
 * modules that keep per-session state (transfer_worker.js) can drop it.
 * @param {(sessionId:string) => void} fn
 * @returns {() => void} unsubscribe
 */
export function onSessionEnd(fn) {
  endListeners.add(fn);
  return () => endListeners.delete(fn);
}

function panelChanged(windowId) {
  for (const fn of panelListeners) {
    try { fn(windowId); } catch { /* a listener must not break the port */ }
  }
}

/** True while a Side Panel of windowId holds its 'agent' port. */
export function panelOpen(windowId) {
  return [...sessions.values()].some((s) => s.port && s.windowId === windowId);
}

/** Posts message to the Side Panel open in windowId; false when none is open. */
export function toPanel(windowId, message) {
  const panel = [...sessions.values()].find((s) => s.port && s.windowId === windowId);
  if (!panel) return false;
  panel.port.postMessage(message);
  return true;
}

/** Sends a CDP command to a session's current tab (the file transfers use it too). */
export function sendCdp(sessionId, method, params = {}) {
  const s = mustSession(sessionId);
  if (!s.attached) throw new Error('the debugger is not attached (the task has ended)');
  return chrome.debugger.sendCommand({ tabId: s.tabId }, method, params);
}

function mustSession(id) {
  const s = sessions.get(String(id));
  if (!s) throw new Error('unknown agent session; reopen the side panel');
  return s;
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

async function attach(s, tabId) {
  for (const other of sessions.values()) {
    if (other !== s && other.attached && other.tabId === tabId) throw new Error('another agent task is already controlling that tab');
  }
  try {
    await chrome.debugger.attach({ tabId }, PROTOCOL);
  } catch (err) {
    throw new Error(`cannot control that tab: ${err?.message || err}`, { cause: err });
  }
  s.tabId = tabId;
  s.attached = true;
  s.follow = undefined;
  await chrome.debugger.sendCommand({ tabId }, 'Page.enable').catch(() => {});
  for (const fn of attachListeners) {
    try { await fn({ sessionId: s.id, tabId }); } catch { /* a hook must not block the task */ }
  }
}

async function detach(s) {
  const was = s.attached;
  s.attached = false;
  s.follow = undefined;
  if (was) await chrome.debugger.detach({ tabId: s.tabId }).catch(() => {});
}

async function switchTo(s, tabId) {
  await detach(s);
  await attach(s, tabId);
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
  const target = { tabId: s.tabId };
  const metrics = await chrome.debugger.sendCommand(target, 'Page.getLayoutMetrics');
  const shot = await chrome.debugger.sendCommand(target, 'Page.captureScreenshot', { format: 'jpeg', quality: 75 });
  const tab = await chrome.tabs.get(s.tabId);
  const notes = s.notes.splice(0);
  if (s.followRefused) notes.push(s.followRefused);
  s.followRefused = undefined;
  return { image: shot.data, mime: 'image/jpeg', viewport: viewportFromMetrics(metrics), url: tab.url, title: tab.title, tabId: s.tabId, notes };
}

// A tab created in the task's window while an action runs (or just after) was
// opened by it: links with target=_blank carry no opener id under noopener.
const FOLLOW_WINDOW_MS = 1500;

// How long agent.detach waits for an aborted action to release what it holds
// (a pressed mouse button) before the debugger goes. The panel has shown the
// outcome already: this is cleanup after it.
const ABORT_GRACE_MS = 150;

async function act(s, action, coordinateMode, step) {
  ensureAttached(s);
  s.actingUntil = Infinity;
  const abort = new AbortController();
  s.actionAbort = abort;
  const target = () => ({ tabId: s.tabId });
  const metrics = await chrome.debugger.sendCommand(target(), 'Page.getLayoutMetrics');
  const env = {
    sessionId: s.id,
    tabId: s.tabId,
    step,
    signal: abort.signal,
    send: trackingSend(() => s.tabId, (method, params) => chrome.debugger.sendCommand(target(), method, params)),
    platform,
    viewport: viewportFromMetrics(metrics),
    coordinateMode: coordinateMode === 'absolute' ? 'absolute' : 'normalized',
    currentUrl: () => currentUrl(s),
    settle: () => settle(s),
    openTab: async (url) => {
      const t = await chrome.tabs.create({ url, windowId: s.windowId, openerTabId: s.tabId, active: true });
      ensureAttached(s);
      await switchTo(s, t.id);
    },
  };
  const running = execute(action, env);
  s.acting = running.catch(() => {});
  try {
    const result = await running;
    const refused = s.followRefused;
    s.followRefused = undefined;
    return refused && result ? { ...result, text: `${result.text}. ${refused}` } : result;
  } finally {
    await actionEnded(s.tabId);
    s.acting = null;
    if (s.actionAbort === abort) s.actionAbort = null;
    s.actingUntil = Date.now() + FOLLOW_WINDOW_MS;
  }
}

// Stops the action in flight, giving it a moment to release the mouse.
async function abortAction(s) {
  s.actionAbort?.abort();
  if (s.acting) await Promise.race([s.acting, sleep(ABORT_GRACE_MS)]);
}

/** Message handlers in shared/core/router.js's shape. */
export const handlers = {
  [AGENT.ATTACH]: {
    from: 'extension',
    async run(m) {
      const s = mustSession(m.sessionId);
      await leftReleased;
      if (s.attached) await detach(s);
      let tab;
      if (m.resume && s.tabId !== undefined) tab = await chrome.tabs.get(s.tabId).catch(() => null);
      // An answer after the panel was reopened continues on the tab the question was asked on, if it is still open.
      if ((!tab || !isWeb(tab.url)) && Number.isInteger(m.preferTabId)) tab = await chrome.tabs.get(m.preferTabId).catch(() => null);
      if (!tab || !isWeb(tab.url)) tab = await pickTab(m.windowId ?? s.windowId, m.tabId);
      s.windowId = tab.windowId;
      s.detachReason = undefined;
      await attach(s, tab.id);
      return { ok: true, tabId: tab.id, url: tab.url, title: tab.title };
    },
  },
  [AGENT.OBSERVE]: {
    from: 'extension',
    async run(m) {
      return { ok: true, observation: await observe(mustSession(m.sessionId)) };
    },
  },
  [AGENT.ACT]: {
    from: 'extension',
    async run(m) {
      return { ok: true, result: await act(mustSession(m.sessionId), m.action, m.coordinateMode, Number.isInteger(m.step) ? m.step : undefined) };
    },
  },
  [AGENT.DETACH]: {
    from: 'extension',
    async run(m) {
      const s = sessions.get(String(m.sessionId));
      if (s) await abortAction(s);
      if (s) await detach(s);
      return { ok: true };
    },
  },
};

/** Wires the toolbar button, the panel ports and the debugger events. */
export function init() {
  leftReleased = releaseWhatWasLeft().catch(() => {});
  initTransfers({ actingRecently, addNote, holdObservation, onAttach, onCdpEvent, onSessionEnd, sendCdp, sessionForTab });
  chrome.sidePanel?.setPanelBehavior?.({ openPanelOnActionClick: true })?.catch?.(() => {});
  chrome.runtime.getPlatformInfo?.().then((p) => { platform = platformOf(p.os); }).catch(() => {});
  const origin = chrome.runtime.getURL('').replace(/\/$/, '');
  const ours = (port) => senderKind(port.sender, chrome.runtime.id, origin) === 'extension';
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name === PORTS.HOST) {
      serveProxiedPort(port, { request: (method, params, opts) => host.request(method, params, opts), trusted: ours(port) });
      return;
    }
    if (port.name !== PORTS.AGENT) return;
    if (!ours(port)) {
      port.disconnect();
      return;
    }
    let sessionId;
    port.onMessage.addListener((msg) => {
      if (msg?.type === AGENT_PORT.HELLO && typeof msg.sessionId === 'string' && !sessionId) {
        sessionId = msg.sessionId;
        sessions.set(sessionId, { id: sessionId, port, windowId: msg.windowId, attached: false, notes: [], holds: new Set() });
        port.postMessage({ type: AGENT_PORT.READY });
        panelChanged(msg.windowId);
      }
      // AGENT_PORT.PING messages only keep the service worker alive during long model requests.
    });
    port.onDisconnect.addListener(() => {
      const s = sessions.get(sessionId);
      sessions.delete(sessionId);
      if (s) abortAction(s).then(() => detach(s));
      if (s) panelChanged(s.windowId);
      for (const fn of endListeners) {
        try { fn(sessionId); } catch { /* a listener must not break the port */ }
      }
    });
  });
  chrome.debugger.onDetach.addListener((source, reason) => {
    for (const s of sessions.values()) {
      if (s.attached && s.tabId === source.tabId) {
        s.attached = false;
        s.detachReason = reason;
      }
    }
  });
  chrome.debugger.onEvent.addListener((source, method, params) => {
    for (const [sessionId, s] of sessions) {
      if (s.attached && s.tabId === source.tabId) for (const fn of cdpListeners) fn({ sessionId, tabId: s.tabId, method, params });
    }
  });
  chrome.tabs.onCreated.addListener((tab) => {
    for (const s of sessions.values()) {
      const opened = tab.openerTabId === s.tabId || (tab.windowId === s.windowId && (s.actingUntil || 0) > Date.now());
      if (s.attached && opened && tab.id !== s.tabId) s.follow = tab.id;
    }
  });
}
