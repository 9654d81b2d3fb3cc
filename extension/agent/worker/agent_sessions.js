// The browser agent's sessions in the service worker: one per open Side
// Panel (its 'agent' port, agent_ports.js), each with the tab it controls
// through chrome.debugger.
//
// This module keeps the session table, the one place where each part keeps
// what it holds for a panel's session (see openSession), and the debugger's
// attachment to a tab; it follows tabs the attached tab opens, and tells
// subscribers about attaches, CDP events and panels opening and closing (the
// file transfers and the Page Assistant use them). A session's state goes
// with it when its panel closes. toPanel() is the worker's way to push to a
// panel (agent/core/panel_contract.js pagePush).

import { createTransferState } from '../core/file_transfer.js';

import { attachTab, detachTab, sendTo } from '../../shared/tab_driver.js';

/** How the chat bridge's refusals name the agent when it holds a tab. */
const HOLDER = "the side panel's agent";

/** sessionId -> the session (openSession) */
const sessions = new Map();
const cdpListeners = new Set();
const attachListeners = new Set();
const panelListeners = new Set();

/** Longest an observation waits for work that will queue a note (a download being read). */
export const HOLD_MAX_MS = 15000;

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
 * Subscribes to Side Panels connecting and disconnecting (the Page Assistant
 * shows its bar only while a panel is open in the page's window).
 * @param {(windowId:number) => void} fn
 * @returns {() => void} unsubscribe
 */
export function onPanelChange(fn) {
  panelListeners.add(fn);
  return () => panelListeners.delete(fn);
}

function each(listeners, value) {
  for (const fn of listeners) {
    try { fn(value); } catch { /* a listener must not break the port */ }
  }
}

/**
 * Registers the session of a panel that said hello on port. A session is
 * one object each part reads and updates:
 * - the panel: id, port, windowId;
 * - the tab (observe_act.js): tabId, attached, follow, detachReason, notes
 *   (lines for the next request), holds (work the next observation waits
 *   for), acting, actingUntil, actionAbort;
 * - the desktop (desktop_task.js): desktop.abort (the call in flight),
 *   desktop.shot (the last screenshot's sizes), desktop.choice (the server
 *   and profile the task moved to the desktop with);
 * - Upload and Download (transfer_worker.js): transfer.state
 *   (core/file_transfer.js), transfer.unavailable (why the workspace could
 *   not be listed for the open file chooser).
 */
export function openSession(sessionId, windowId, port) {
  sessions.set(sessionId, {
    id: sessionId, port, windowId, attached: false, notes: [], holds: new Set(),
    desktop: { abort: null, shot: null, choice: null },
    transfer: { state: createTransferState(), unavailable: '' },
  });
  each(panelListeners, windowId);
}

/**
 * Drops the session of a panel whose port closed, and everything it held;
 * returns it (or undefined) so the caller can stop its actions and detach.
 */
export function closeSession(sessionId) {
  const s = sessions.get(sessionId);
  sessions.delete(sessionId);
  if (s) each(panelListeners, s.windowId);
  return s;
}

/** The sessions whose task controls a tab now, with that tab (the file transfers attribute downloads by it). */
export function attachedSessions() {
  return [...sessions.values()].filter((s) => s.attached);
}

/** The session with id, or undefined. */
export function findSession(id) {
  return sessions.get(String(id));
}

/** The session with id; throws the panel's advice when there is none. */
export function mustSession(id) {
  const s = sessions.get(String(id));
  if (!s) throw new Error('unknown agent session; reopen the side panel');
  return s;
}

/**
 * Queues a line for the session's next model request (the workspace
 * inventory after a file chooser opened, a download that is waiting for a name).
 */
export function addNote(sessionId, text) {
  mustSession(sessionId).notes.push(String(text));
}

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
 * True while the session's action runs or has just run (observe_act.js
 * FOLLOW_WINDOW_MS): what the page does then (a new tab, a download) is the action's doing.
 */
export function actingRecently(sessionId) {
  const s = sessions.get(String(sessionId));
  return Boolean(s && (s.acting || (s.actingUntil || 0) > Date.now()));
}

/** True while a Side Panel of windowId holds its 'agent' port. */
export function panelOpen(windowId) {
  return [...sessions.values()].some((s) => s.port && s.windowId === windowId);
}

/** Posts message (panel_contract.js pagePush) to the Side Panel open in windowId; false when none is open. */
export function toPanel(windowId, message) {
  const panel = [...sessions.values()].find((s) => s.port && s.windowId === windowId);
  if (!panel) return false;
  panel.port.postMessage(message);
  return true;
}

/** Posts message to every open Side Panel (the desktop offer changed: panel_contract.js desktopPush). */
export function toPanels(message) {
  for (const s of sessions.values()) {
    try { s.port?.postMessage(message); } catch { /* that panel is closing */ }
  }
}

/** Sends a CDP command to a session's current tab (the file transfers use it too). */
export function sendCdp(sessionId, method, params = {}) {
  const s = mustSession(sessionId);
  if (!s.attached) throw new Error('the debugger is not attached (the task has ended)');
  return sendTo(s.tabId, method, params);
}

/** Attaches the debugger of session s to tabId (refused when another session controls it). */
export async function attach(s, tabId) {
  for (const other of sessions.values()) {
    if (other !== s && other.attached && other.tabId === tabId) throw new Error('another agent task is already controlling that tab');
  }
  await attachTab(tabId, HOLDER);
  s.tabId = tabId;
  s.attached = true;
  s.follow = undefined;
  for (const fn of attachListeners) {
    try { await fn({ sessionId: s.id, tabId }); } catch { /* a hook must not block the task */ }
  }
}

/** Detaches session s's debugger, if attached. */
export async function detach(s) {
  const was = s.attached;
  s.attached = false;
  s.follow = undefined;
  if (was) await detachTab(s.tabId);
}

/** Moves session s's debugger to tabId. */
export async function switchTo(s, tabId) {
  await detach(s);
  await attach(s, tabId);
}

/**
 * Follows the debugger's own detaching, hands CDP events to subscribers, and
 * marks a tab the attached tab (or an action just run) opened as the one to follow.
 */
export function watchDebugger() {
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
