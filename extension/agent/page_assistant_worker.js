// The Page Assistant's half of the service worker: the setting, the
// registered content script, and telling pages whether a Side Panel is open
// in their window.
//
// The content script (page_assistant.js) is registered persistently for every
// http(s) page only while the setting is on and the optional host permission
// for http/https is held; turning it on also injects it into tabs that are
// already open, and turning it off unregisters it and tells open pages to
// remove their bar. The permission itself is requested by the
// Side Panel's toggle, from the user's click (page_assistant_toggle.js).
// Tasks and Stop from the page go through worker.js (agent.pageTask,
// agent.pageStop), which owns the panel ports.

import { onPanelChange, panelOpen } from './worker.js';
import { ENABLED_KEY, PAGE_ORIGINS, PERMISSION_MESSAGE, SCRIPT_FILES, SCRIPT_ID } from './page_assistant_settings.js';

const isWeb = (url) => /^https?:\/\//i.test(url || '');

async function isEnabled() {
  return (await chrome.storage.local.get(ENABLED_KEY))[ENABLED_KEY] === true;
}

async function hasPageAccess() {
  return chrome.permissions.contains({ origins: [...PAGE_ORIGINS] });
}

async function register() {
  const existing = await chrome.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] });
  if (existing.length) return;
  await chrome.scripting.registerContentScripts([{
    id: SCRIPT_ID, matches: [...PAGE_ORIGINS], js: [...SCRIPT_FILES], runAt: 'document_idle', allFrames: false, persistAcrossSessions: true,
  }]);
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

function tell(tabId, event) {
  chrome.tabs.sendMessage(tabId, { type: 'gnosis.pageAssistant', event }).catch(() => {});
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

/** Message handlers in router.js's shape. */
export const handlers = {
  'pageAssistant.setEnabled': {
    from: 'extension',
    run: (m) => setEnabled(m.enabled === true),
  },
  'pageAssistant.state': {
    from: 'content',
    async run(m, sender) {
      return { ok: true, enabled: await isEnabled(), panelOpen: panelOpen(sender.tab.windowId) };
    },
  },
};

/** Keeps the registration in step with the setting and the permission; relays panel open/close to pages. */
export function init() {
  onPanelChange((windowId) => { broadcastPanel(windowId); });
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
