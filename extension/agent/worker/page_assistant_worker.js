// The Page Assistant's half of the service worker: the setting, the
// registered content script, telling pages whether a Side Panel is open in
// their window, and carrying a run's events to the bar's frame.
//
// The content script (page/page_assistant.js) is registered persistently for every
// http(s) page only while the setting is on and the optional host permission
// for http/https is held; turning it on also injects it into tabs that are
// already open, and turning it off unregisters it and tells open pages to
// remove their bar. The permission itself is requested by the
// Side Panel's toggle, from the user's click (panel/page_assistant_toggle.js).
//
// The content script only places the bar's iframe; it learns the setting and
// the panel state and nothing else. The bar itself is an extension page in
// that iframe (frame/page_assistant_frame.html), which holds a runtime port named
// PORTS.PAGE_ASSISTANT_FRAME: it gets the setting, the panel state and the run's events over
// it (the panel relays them here with pageAssistant.relay), whether the
// desktop is offered as a place to start (desktop_worker.js desktopOffer, and
// each change of it), and hands tasks,
// Stop, Pause and Resume (agent.pageTask, agent.pageStop, agent.pagePause,
// agent.pageResume) to the open panel of its window (agent_sessions.js toPanel).
//
// The frame's page is web-accessible, so any page can embed a copy of it (and
// crop it to a bare input under its own label). Only the frame the content
// script placed counts: the content script asks here for a one-time token
// (pageAssistant.frameToken, from the tab's top frame), posts it into its own
// iframe only (window.postMessage to that frame's window, with the
// extension's origin as target: no page script sees it), and the frame hands
// it back on its port. That frame's document (sender.documentId) is then
// trusted for its tab, also across a worker restart (storage.session). A
// frame without it gets nothing on its port (no setting, no panel state, no
// run), and its tasks and controls are refused.

import { senderKind } from '../../shared/core/router.js';
import { onPanelChange, panelOpen, toPanel } from './agent_sessions.js';
import { pagePush, readRelay, readSetEnabled } from '../core/panel_contract.js';
import { desktopOffer, onDesktopChange } from './desktop_worker.js';
import { ENABLED_KEY, PAGE_ORIGINS, PERMISSION_MESSAGE, SCRIPT_FILES, SCRIPT_ID } from '../core/page_assistant_settings.js';
import { AGENT, PAGE_ASSISTANT, PAGE_ASSISTANT_EVENT, PORTS } from '../../shared/core/messages.js';

const isWeb = (url) => /^https?:\/\//i.test(url || '');

async function isEnabled() {
  return (await chrome.storage.local.get(ENABLED_KEY))[ENABLED_KEY] === true;
}

async function hasPageAccess() {
  return chrome.permissions.contains({ origins: [...PAGE_ORIGINS] });
}

async function register() {
  const existing = await chrome.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] });
  const script = { id: SCRIPT_ID, matches: [...PAGE_ORIGINS], js: [...SCRIPT_FILES], runAt: 'document_idle', allFrames: false, persistAcrossSessions: true };
  if (!existing.length) {
    await chrome.scripting.registerContentScripts([script]);
    return;
  }
  // A registration persisted by an earlier version may list other files.
  if (JSON.stringify(existing[0].js) !== JSON.stringify(script.js)) await chrome.scripting.updateContentScripts([script]);
}

async function unregister() {
  const existing = await chrome.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] });
  if (existing.length) await chrome.scripting.unregisterContentScripts({ ids: [SCRIPT_ID] });
}

// Tabs opened before the toggle was turned on get the script now (it runs once per document).
async function injectOpenTabs() {
  const tabs = await chrome.tabs.query({ url: [...PAGE_ORIGINS] });
  await Promise.all(tabs.map((t) => chrome.scripting.executeScript({ target: { tabId: t.id }, files: [...SCRIPT_FILES] }).catch(() => {})));
}

/** tabId -> Set of the trusted bar frames' ports in that tab. */
const frames = new Map();

/** How long a frame token stays valid: the frame claims it as soon as it has loaded. */
const TOKEN_TTL_MS = 60_000;
/** Most tokens waiting in one tab (the bar is rebuilt when the setting or the panel changes). */
const TOKENS_PER_TAB = 4;
/** tabId -> Map(token -> expiry, ms epoch): tokens handed to the content script, not yet claimed. */
const tokens = new Map();
/** storage.session key of the trusted frames' documents. */
const TRUSTED_KEY = 'pageAssistant.trustedFrames';
/** "tabId:documentId" of each trusted frame's document; loaded from storage.session once. */
let trusted = null;

async function trustedSet() {
  if (!trusted) {
    const stored = (await chrome.storage.session.get(TRUSTED_KEY).catch(() => ({})))[TRUSTED_KEY];
    trusted = new Set(Array.isArray(stored) ? stored : []);
  }
  return trusted;
}

const frameKey = (sender) => `${sender.tab.id}:${sender.documentId}`;

async function trust(sender) {
  const set = await trustedSet();
  set.add(frameKey(sender));
  await chrome.storage.session.set({ [TRUSTED_KEY]: [...set] }).catch(() => {});
}

async function forgetTab(tabId) {
  tokens.delete(tabId);
  frames.delete(tabId);
  const set = await trustedSet();
  for (const k of [...set]) if (k.startsWith(`${tabId}:`)) set.delete(k);
  await chrome.storage.session.set({ [TRUSTED_KEY]: [...set] }).catch(() => {});
}

/** True when sender is the bar's frame the content script placed in its tab. */
export async function isTrustedFrame(sender) {
  if (!sender?.tab || typeof sender.documentId !== 'string' || !sender.frameId) return false;
  return (await trustedSet()).has(frameKey(sender));
}

/** A fresh one-time token for the frame the content script is about to place in tabId. */
function issueToken(tabId) {
  const now = Date.now();
  const mine = tokens.get(tabId) || new Map();
  for (const [t, until] of mine) if (until < now) mine.delete(t);
  while (mine.size >= TOKENS_PER_TAB) mine.delete(mine.keys().next().value);
  const token = crypto.randomUUID();
  mine.set(token, now + TOKEN_TTL_MS);
  tokens.set(tabId, mine);
  return token;
}

/** Consumes token for tabId: true once, for a token issued to that tab and not expired. */
function claimToken(tabId, token) {
  const mine = tokens.get(tabId);
  const until = typeof token === 'string' ? mine?.get(token) : undefined;
  if (until === undefined) return false;
  mine.delete(token);
  return until >= Date.now();
}

const wrap = (event) => ({ type: PAGE_ASSISTANT_EVENT, event });

/** Sends an event to the bar frames of a tab (the run's events go nowhere else). */
function toFrames(tabId, event) {
  for (const port of frames.get(tabId) || []) {
    try { port.postMessage(wrap(event)); } catch { /* the frame is gone */ }
  }
}

// The content script in the page's top frame hears only whether to show the bar.
function tell(tabId, event) {
  chrome.tabs.sendMessage(tabId, wrap(event), { frameId: 0 }).catch(() => {});
  toFrames(tabId, event);
}

async function broadcastPanel(windowId) {
  if (!(await isEnabled())) return;
  const open = panelOpen(windowId);
  const tabs = await chrome.tabs.query({ windowId }).catch(() => []);
  for (const t of tabs) if (isWeb(t.url)) tell(t.id, { type: 'panel', open });
}

// The toggle reaches every page's bar from here, so the content script needs no
// chrome.storage access (the page's renderer never sees storage changes).
async function broadcastSetting(enabled) {
  const tabs = await chrome.tabs.query({ url: [...PAGE_ORIGINS] }).catch(() => []);
  for (const t of tabs) tell(t.id, { type: 'settings', enabled });
}

// A bar frame connects when it loads. Until it proves with its token (or,
// after a worker restart, by its document) that the content script placed
// it, it gets nothing; then the current setting and panel state at once, and
// everything its tab's run relays.
function onFrameConnect(port) {
  if (port.name !== PORTS.PAGE_ASSISTANT_FRAME) return;
  const origin = chrome.runtime.getURL('').replace(/\/$/, '');
  if (senderKind(port.sender, chrome.runtime.id, origin) !== 'frame') {
    port.disconnect();
    return;
  }
  const tabId = port.sender.tab.id;
  let joined = false;
  const join = async () => {
    if (joined) return;
    joined = true;
    if (!frames.has(tabId)) frames.set(tabId, new Set());
    frames.get(tabId).add(port);
    const tab = await chrome.tabs.get(tabId).catch(() => port.sender.tab);
    port.postMessage(wrap({ type: 'panel', open: panelOpen(tab.windowId) }));
    port.postMessage(wrap({ type: 'settings', enabled: await isEnabled() }));
    const d = await desktopOffer().catch((err) => ({ offered: false, why: `The extension could not ask about it: ${err?.message || err}.` }));
    try { port.postMessage(wrap(desktopEvent(d))); } catch { /* the frame is gone */ }
  };
  port.onMessage.addListener((m) => {
    if (joined || m?.type !== PAGE_ASSISTANT.FRAME_TOKEN || !claimToken(tabId, m.token)) return;
    trust(port.sender).then(join).catch(() => {});
  });
  port.onDisconnect.addListener(() => {
    const set = frames.get(tabId);
    set?.delete(port);
    if (set && set.size === 0) frames.delete(tabId);
  });
  isTrustedFrame(port.sender).then((ok) => { if (ok) return join(); }).catch(() => {});
}

/** What a bar hears of the desktop offer: whether it may start a task there, and why not. */
const desktopEvent = (d) => ({ type: 'desktop', offered: Boolean(d.offered), why: d.offered ? '' : String(d.why || '') });

/** Tells every trusted bar the desktop offer changed. */
function desktopToFrames(d) {
  for (const tabId of frames.keys()) toFrames(tabId, desktopEvent(d));
}

/** The open panel of the sender's window gets a trusted frame's task or control. */
async function fromFrame(sender, kind, fields) {
  if (!(await isTrustedFrame(sender))) return { ok: false, error: 'This assistant bar was not placed by Gnosis on this page; use the bar Gnosis shows, or the side panel.' };
  if (!toPanel(sender.tab.windowId, pagePush(kind, sender.tab.id, fields))) return { ok: false, error: 'Open the Gnosis side panel in this window to run tasks.' };
  return { ok: true };
}

/**
 * Turns the Page Assistant on or off. On needs the page access already granted
 * (the toggle requests it from the click).
 */
export async function setEnabled(enabled) {
  if (enabled) {
    if (!(await hasPageAccess())) return { ok: false, error: PERMISSION_MESSAGE };
    await register();
    await chrome.storage.local.set({ [ENABLED_KEY]: true });
    await injectOpenTabs();
    return { ok: true, enabled: true };
  }
  await chrome.storage.local.set({ [ENABLED_KEY]: false });
  await unregister();
  return { ok: true, enabled: false };
}

/** Message handlers in shared/core/router.js's shape. */
export const handlers = {
  [PAGE_ASSISTANT.SET_ENABLED]: {
    from: 'extension',
    run: (m) => setEnabled(readSetEnabled(m).enabled),
  },
  // The content script asks for the token that marks the frame it places (only in the tab's top frame).
  [PAGE_ASSISTANT.FRAME_TOKEN]: {
    from: 'content',
    run(m, sender) {
      if (sender.frameId !== 0) return { ok: false, error: 'the bar is placed only in the top frame' };
      return { ok: true, token: issueToken(sender.tab.id) };
    },
  },
  // A task typed in the bar (or the answer to the agent's question).
  [AGENT.PAGE_TASK]: {
    from: 'frame',
    run(m, sender) {
      if (typeof m.task !== 'string' || m.task.trim() === '') return { ok: false, error: 'Type a task first.' };
      return fromFrame(sender, 'task', { task: m.task, reply: m.reply === true, acted: m.acted === true, surface: m.surface });
    },
  },
  [AGENT.PAGE_STOP]: { from: 'frame', run: (m, sender) => fromFrame(sender, 'stop') },
  [AGENT.PAGE_PAUSE]: { from: 'frame', run: (m, sender) => fromFrame(sender, 'pause') },
  [AGENT.PAGE_RESUME]: { from: 'frame', run: (m, sender) => fromFrame(sender, 'resume') },
  // The content script asks whether to show the bar (nothing about runs).
  [PAGE_ASSISTANT.STATE]: {
    from: 'content',
    async run(m, sender) {
      return { ok: true, enabled: await isEnabled(), panelOpen: panelOpen(sender.tab.windowId) };
    },
  },
  // The Side Panel's relay (panel/page_assistant_panel.js): one run event for the bar of a tab.
  [PAGE_ASSISTANT.RELAY]: {
    from: 'extension',
    run(m) {
      const r = readRelay(m);
      if (!r) return { ok: false, error: 'pageAssistant.relay needs a tabId and an event' };
      toFrames(r.tabId, r.event);
      return { ok: true };
    },
  },
};

/** Keeps the registration in step with the setting and the permission; relays panel open/close and the desktop offer to pages. */
export function init() {
  chrome.runtime.onConnect.addListener(onFrameConnect);
  chrome.tabs.onRemoved.addListener((tabId) => { forgetTab(tabId); });
  onPanelChange((windowId) => { broadcastPanel(windowId); });
  onDesktopChange(desktopToFrames);
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && changes[ENABLED_KEY]) broadcastSetting(changes[ENABLED_KEY].newValue === true);
  });
  // A tab dragged to another window follows that window's panel.
  chrome.tabs.onAttached.addListener(async (tabId, info) => {
    if (await isEnabled()) tell(tabId, { type: 'panel', open: panelOpen(info.newWindowId) });
  });
  chrome.permissions.onRemoved.addListener(async () => {
    if ((await isEnabled()) && !(await hasPageAccess())) await setEnabled(false);
  });
  (async () => {
    if (!(await isEnabled())) return;
    if (await hasPageAccess()) await register();
    else await setEnabled(false);
  })().catch(() => {});
}
