// The tab engine's chrome.debugger glue: how Gnosis takes a tab, looks at
// it and acts on it, for both of its drivers — the side-panel agent
// (agent/worker/observe_act.js) and the chat bridge's browser.* capabilities
// (bridge/worker/browser_tab_tools.js). Attaching and detaching, the screenshot
// with the viewport it covers, and one action run through the action table
// (tab_executor.js) with what it presses on record (tab_held_input.js) and
// an AbortSignal that ends it. Who may drive which tab is each driver's
// business; the how is here once.

import { execute } from './tab_executor.js';
import { actionEnded, trackingSend } from './tab_held_input.js';
import { viewportFromMetrics } from './core/cdp_input.js';
import { platformOf } from './core/hotkey.js';

/** The CDP protocol version the engine speaks. */
export const PROTOCOL = '1.3';

/** The screenshot's encoding: JPEG at this quality (what the models are sent). */
export const SHOT = Object.freeze({ format: 'jpeg', quality: 75, mime: 'image/jpeg' });

let platform = null;

/** tabId -> who holds the debugger there ("the side panel's agent", "https://chat.example"), to say so to the other. */
const holders = new Map();

/** The platform the hotkeys are spelled for (hotkey.js platformOf), read once from the browser. */
export function enginePlatform() {
  platform ??= (chrome.runtime.getPlatformInfo?.() || Promise.resolve({ os: 'linux' }))
    .then((p) => platformOf(p.os), () => 'linux');
  return platform;
}

/**
 * Attaches the debugger to a tab for holder and enables its Page domain. A
 * tab the engine holds for another driver is refused naming it; the
 * browser's own refusal (another debugger there, a page no extension may
 * debug) is said after "cannot control that tab".
 * @param {number} tabId
 * @param {string} holder who takes it, as a refusal to the other driver names it
 */
export async function attachTab(tabId, holder) {
  const other = holders.get(tabId);
  if (other !== undefined && other !== holder) throw new Error(`cannot control that tab: ${other} is working on it now`);
  try {
    await chrome.debugger.attach({ tabId }, PROTOCOL);
  } catch (err) {
    throw new Error(`cannot control that tab: ${err?.message || err}`, { cause: err });
  }
  holders.set(tabId, holder);
  await chrome.debugger.sendCommand({ tabId }, 'Page.enable').catch(() => {});
}

/** Detaches the debugger from a tab (nothing when it is not attached). */
export async function detachTab(tabId) {
  holders.delete(tabId);
  await chrome.debugger.detach({ tabId }).catch(() => {});
}

// The browser detached the debugger itself (the tab closed, the person
// cancelled it from the infobar): the tab is free. Registered when the
// worker loads, as the browser wants its listeners.
globalThis.chrome?.debugger?.onDetach.addListener((source) => holders.delete(source.tabId));

/** Sends one CDP command to an attached tab. */
export function sendTo(tabId, method, params = {}) {
  return chrome.debugger.sendCommand({ tabId }, method, params);
}

/** The CSS viewport a screenshot of the attached tab covers now. */
export async function viewportOf(tabId) {
  return viewportFromMetrics(await sendTo(tabId, 'Page.getLayoutMetrics'));
}

/**
 * A screenshot of the attached tab's viewport.
 * @returns {Promise<{image: string, mime: string, viewport: {width:number, height:number, pageX:number, pageY:number}}>}
 *   image: base64 JPEG
 */
export async function captureTab(tabId) {
  const viewport = await viewportOf(tabId);
  const shot = await sendTo(tabId, 'Page.captureScreenshot', { format: SHOT.format, quality: SHOT.quality });
  return { image: shot.data, mime: SHOT.mime, viewport };
}

/**
 * Runs one action (the parser's shape, {name, args}) on the attached tab.
 * What it presses is on record until released; its own finally releases a
 * pressed button when signal aborts it.
 * @param {object} o
 * @param {() => number} o.tabOf the tab the action works on now (the agent follows tabs mid-action)
 * @param {{name: string, args: object}} o.action
 * @param {AbortSignal} o.signal ends it (it rejects with code 'stopped')
 * @param {'normalized'|'absolute'} [o.coordinateMode] how the action's points read
 * @param {{width:number, height:number}} [o.viewport] what the points are relative to (default: the viewport now)
 * @param {() => Promise<string>} o.currentUrl
 * @param {() => Promise<void>} [o.settle] waits for what the action started (a navigation)
 * @param {(url: string) => Promise<void>} [o.openTab] Launch's new tab
 * @param {object} [o.extra] more of the executor's env (the agent's session id and step for its transfers)
 * @returns {Promise<{text: string, error?: boolean, url?: string}>}
 */
export async function runAction({ tabOf, action, signal, coordinateMode = 'normalized', viewport, currentUrl, settle, openTab, extra = {} }) {
  const env = {
    ...extra,
    tabId: tabOf(),
    signal,
    send: trackingSend(tabOf, (method, params) => sendTo(tabOf(), method, params)),
    platform: await enginePlatform(),
    viewport: viewport || await viewportOf(tabOf()),
    coordinateMode,
    currentUrl,
    settle,
    openTab,
  };
  try {
    return await execute(action, env);
  } finally {
    await actionEnded(tabOf());
  }
}
