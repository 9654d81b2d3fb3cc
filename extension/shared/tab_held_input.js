// What the tab engine's actions hold on a tab (mouse buttons pressed, keys down),
// kept in chrome.storage.session before each press goes out, so that a
// worker the browser stopped in the middle of an action (a LongPress, a
// Drag, a held Hotkey, a browser.drag) is followed by one that lets it all go: at start-up
// it sends the releases through the debugger attachment the stopped worker
// left, then detaches from every tab this extension still holds, so the
// next task can take the tab. The rules (what a command holds, what
// releases it) are core/input_holds.js's; this is the chrome.* glue.

import { holdsAny, releases, track } from './core/input_holds.js';

const KEY = 'agent.held';
/** tabId -> what the running action holds there (mirrors storage.session). */
const held = new Map();
let writing = Promise.resolve();

function persist() {
  const value = Object.fromEntries([...held].filter(([, h]) => holdsAny(h)));
  writing = writing.then(() => chrome.storage.session.set({ [KEY]: value })).catch(() => {});
  return writing;
}

/**
 * Wraps an action's CDP send for a tab so that what it presses is on record
 * before the press is sent, and off record once the release is.
 * @param {() => number} tabOf the tab the action works on now
 * @param {(method: string, params?: object) => Promise<any>} send
 */
export function trackingSend(tabOf, send) {
  return async (method, params) => {
    if (method !== 'Input.dispatchMouseEvent' && method !== 'Input.dispatchKeyEvent') return send(method, params);
    const tabId = tabOf();
    const after = track(held.get(tabId), method, params);
    const pressing = params?.type === 'mousePressed' || params?.type === 'keyDown' || params?.type === 'rawKeyDown';
    if (pressing) {
      held.set(tabId, after);
      await persist();
      return send(method, params);
    }
    const r = await send(method, params);
    held.set(tabId, after);
    await persist();
    return r;
  };
}

/** The action on a tab ended (its own finally released what it pressed). */
export async function actionEnded(tabId) {
  if (!held.has(tabId)) return;
  held.delete(tabId);
  await persist();
}

/**
 * At the worker's start: releases what a stopped worker's action held, and
 * detaches the debugger from every tab this extension is still attached to
 * (a new worker has no task, so any attachment is a stopped one's).
 * @returns {Promise<{released: number, detached: number[]}>}
 */
export async function releaseWhatWasLeft() {
  const { [KEY]: left = {} } = await chrome.storage.session.get(KEY).catch(() => ({}));
  let released = 0;
  for (const [tab, h] of Object.entries(left)) {
    for (const [method, params] of releases(h)) {
      await chrome.debugger.sendCommand({ tabId: Number(tab) }, method, params).then(() => { released++; }, () => {});
    }
  }
  await chrome.storage.session.remove(KEY).catch(() => {});
  const detached = [];
  const targets = await chrome.debugger.getTargets().catch(() => []);
  for (const t of targets) {
    if (!t.attached || !Number.isInteger(t.tabId)) continue;
    // Only this extension's own attachment can be detached here; another client's refuses.
    await chrome.debugger.detach({ tabId: t.tabId }).then(() => detached.push(t.tabId), () => {});
  }
  return { released, detached };
}
