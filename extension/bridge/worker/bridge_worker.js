// The chat bridge in the service worker: its one message handler map and its
// listeners. Each handler names who may send it (shared/core/router.js's shape; checked
// on every message): everything that reads or changes grants, arms an origin,
// or answers an approval is accepted only from the extension's own pages;
// content scripts may only report a delivery and say the person wrote, and
// hand over a settled reply on their call port (PORTS.BRIDGE_CALL, whose
// sender is checked the same way). The work is done by the modules imported
// below: site_state.js (an origin's stored state, tabs and badges), arming.js
// (Start/Stop and the content script), reply_port.js and
// call_runner.js (the execute path), approval_window.js (asking the person),
// host_queries.js (grants, capability prompt, host status), setup_worker.js
// (the setup page: MCP servers, diagnostic report, download location, and
// opening the page on install), remembered_choices.js (the choices that answer later
// questions), activity_log.js (the activity log and its handlers); the pure logic
// lives in the modules they import.
import { host } from '../../shared/host.js';
import { eligibleOrigin, toCss } from '../core/selector.js';
import { humanMessage } from '../core/guard.js';
import { detectSelectors, matchPreset } from '../core/presets.js';
import { followSendButton, normalizeSettings } from '../core/site_settings.js';
import {
  getSession, isArmed, loadSettings, requireOrigin, saveSettings, savedOrigins, senderOrigin, session, setBadge, sitePattern, tabsOf,
} from './site_state.js';
import { capabilityPrompt, hostStatus, readGrants, writeGrants } from './host_queries.js';
import { handlers as setupHandlers, initSetup } from './setup_worker.js';
import { configureTab, ensureContent, insertPrompt, start, stop } from './arming.js';
import { approvals, answerApproval } from './approval_window.js';
import { reportDelivery, reportedImages, serveReplyPort } from './reply_port.js';
import { handlers as activityHandlers, initActivity, recordImages } from './activity_log.js';
import { forget, init as initRemembered, remembered } from './remembered_choices.js';
import { handlers as shareHandlers, initBrowserTabs } from './browser_tabs.js';
import { BRIDGE, BRIDGE_PAGE, HOST_CARD } from '../../shared/core/messages.js';

/** Which preset fits the page in the tab: by its origin, else by its structure. */
async function detectPreset(tabId, origin) {
  const selectors = detectSelectors();
  let counts = {};
  if (await chrome.permissions.contains({ origins: [sitePattern(origin)] })) {
    await ensureContent(tabId);
    const reply = await chrome.tabs.sendMessage(tabId, { type: BRIDGE_PAGE.CHECK, selectors: Object.fromEntries(selectors.map((css, i) => [`d${i}`, css])) });
    counts = reply?.results || {};
  }
  const found = matchPreset(origin, (css) => (counts[`d${selectors.indexOf(css)}`]?.count || 0) > 0);
  return found ? { ok: true, preset: found.preset, by: found.by } : { ok: true, preset: null };
}

async function tabForOrigin(tabId, origin) {
  const tab = await chrome.tabs.get(tabId);
  if (eligibleOrigin(tab.url || '') !== origin) throw new Error('that tab is not on this origin any more');
  return tab;
}

/** Message handlers, merged into background.js's single map. */
export const handlers = {
  ...activityHandlers,
  ...shareHandlers,
  [BRIDGE.GET_SITE]: {
    from: 'extension',
    async run({ origin }) {
      requireOrigin(origin);
      return {
        ok: true, origin, settings: await loadSettings(origin), armed: await isArmed(origin),
        last: await getSession(`last:${origin}`, null),
      };
    },
  },
  [BRIDGE.SAVE_SITE]: {
    from: 'extension',
    async run({ origin, settings }) {
      requireOrigin(origin);
      const n = normalizeSettings(settings);
      if (Object.keys(n.errors).length) return { ok: false, errors: n.errors };
      n.settings = followSendButton(await loadSettings(origin), n.settings);
      await saveSettings(origin, n.settings);
      if (await isArmed(origin)) {
        for (const tab of await tabsOf(origin)) configureTab(tab.id, origin, false).catch(() => {});
      }
      return { ok: true, settings: n.settings };
    },
  },
  [BRIDGE.LIST_SITES]: {
    from: 'extension',
    async run() {
      return { ok: true, origins: await savedOrigins() };
    },
  },
  [BRIDGE.START]: { from: 'extension', run: ({ origin, grants, tabId }) => start(origin, grants, tabId) },
  [BRIDGE.GET_GRANTS]: { from: 'extension', run: ({ origin }) => readGrants(origin) },
  [BRIDGE.SET_GRANTS]: { from: 'extension', run: ({ origin, grants }) => writeGrants(origin, grants) },
  [BRIDGE.APPROVAL]: {
    from: 'extension',
    run({ token }) {
      const view = approvals.view(token);
      return view ? { ok: true, ...view } : { ok: false, error: 'this call is no longer waiting for an answer' };
    },
  },
  [BRIDGE.APPROVE]: {
    from: 'extension',
    run({ token, allow, remember, confirmed }, sender) {
      const entry = approvals.get(token);
      // Only the window opened for this approval answers it.
      if (!entry || entry.windowId == null || sender.tab?.windowId !== entry.windowId) {
        return { ok: false, error: 'this call is no longer waiting for an answer' };
      }
      return answerApproval(token, allow === true, { remember, confirmed: confirmed === true });
    },
  },
  [BRIDGE.REMEMBERED]: { from: 'extension', run: ({ origin }) => remembered(requireOrigin(origin)) },
  [BRIDGE.FORGET_CHOICES]: { from: 'extension', run: ({ origin }) => forget(requireOrigin(origin)) },
  [BRIDGE.STOP]: { from: 'extension', run: ({ origin }) => stop(requireOrigin(origin)) },
  [HOST_CARD.STATUS]: { from: 'extension', run: ({ refresh, reconnect }) => hostStatus(!!refresh, !!reconnect) },
  [BRIDGE.CAPABILITY_PROMPT]: { from: 'extension', run: ({ origin, choices }) => capabilityPrompt(origin || undefined, choices) },
  [BRIDGE.INSERT_PROMPT]: {
    from: 'extension',
    async run({ tabId, origin, choices }) {
      await tabForOrigin(tabId, origin);
      return insertPrompt(tabId, origin, choices);
    },
  },
  [BRIDGE.DETECT_PRESET]: {
    from: 'extension',
    async run({ tabId, origin }) {
      requireOrigin(origin);
      if (tabId == null) return { ok: true, ...matchPresetByOrigin(origin) };
      await tabForOrigin(tabId, origin);
      return detectPreset(tabId, origin);
    },
  },
  [BRIDGE.PICK]: {
    from: 'extension',
    async run({ tabId, origin, field }, sender) {
      await tabForOrigin(tabId, origin);
      await ensureContent(tabId);
      await chrome.tabs.update(tabId, { active: true });
      const result = await chrome.tabs.sendMessage(tabId, { type: BRIDGE_PAGE.PICK, field });
      if (sender.tab?.id) chrome.tabs.update(sender.tab.id, { active: true }).catch(() => {});
      return result;
    },
  },
  [BRIDGE.DETECT]: {
    from: 'extension',
    async run({ tabId, origin, show }, sender) {
      await tabForOrigin(tabId, origin);
      if (!(await chrome.permissions.contains({ origins: [sitePattern(origin)] }))) return { ok: false, error: 'no access to the page yet' };
      await ensureContent(tabId);
      if (show) await chrome.tabs.update(tabId, { active: true });
      const result = await chrome.tabs.sendMessage(tabId, { type: BRIDGE_PAGE.DETECT, show: !!show });
      if (show && sender.tab?.id) chrome.tabs.update(sender.tab.id, { active: true }).catch(() => {});
      return result;
    },
  },
  [BRIDGE.CHECK]: {
    from: 'extension',
    async run({ tabId, origin, selectors, attach }) {
      await tabForOrigin(tabId, origin);
      if (!(await chrome.permissions.contains({ origins: [sitePattern(origin)] }))) return { ok: false, error: 'no access to the page yet' };
      await ensureContent(tabId);
      const css = {};
      for (const [k, v] of Object.entries(selectors || {})) css[k] = toCss(v);
      // How the page takes images, for the form's choice (kept to what the settings allow).
      const a = attach && normalizeSettings(attach).settings;
      const means = a && { attachBy: a.attachBy, attachTarget: toCss(a.attachTarget) || '', preset: a.preset };
      const reply = await chrome.tabs.sendMessage(tabId, { type: BRIDGE_PAGE.CHECK, selectors: css, attach: means });
      return { ...reply, css };
    },
  },
  ...setupHandlers,
  [BRIDGE.REPORT]: {
    from: 'content',
    async run({ ok, stage, error, images, entry }, sender) {
      // A delivery reported after the call's port went away says what became of its images too.
      const said = reportedImages(images);
      const r = await reportDelivery(sender, { ok: ok === true, stage: String(stage || ''), error: typeof error === 'string' ? error.slice(0, 1000) : undefined, images: said });
      if (said && r.ok) await recordImages(entry, said, senderOrigin(sender));
      return r;
    },
  },
  [BRIDGE.HUMAN]: {
    from: 'content',
    async run(_message, sender) {
      const origin = senderOrigin(sender);
      if (origin && (await isArmed(origin))) await session.set({ [`safety:${origin}`]: humanMessage() });
      return { ok: true };
    },
  },
};

function matchPresetByOrigin(origin) {
  const found = matchPreset(origin, () => false);
  return found ? { preset: found.preset, by: found.by } : { preset: null };
}

/** Registers the bridge's listeners: re-arms tabs of armed origins after navigation and reload. */
export function init() {
  initSetup();
  initRemembered();
  initActivity();
  initBrowserTabs();
  // Keep the cached health (prefixes for the gate, the options page's status) current.
  const refresh = () => host.health({ timeoutMs: 5000 }).catch(() => {});
  host.on('capabilities.changed', refresh);
  host.on('provider.state', refresh);
  // The content scripts' call ports.
  const extensionOrigin = chrome.runtime.getURL('').replace(/\/$/, '');
  chrome.runtime.onConnect.addListener((port) => serveReplyPort(port, extensionOrigin));
  // Closing the approval window is a No.
  chrome.windows.onRemoved.addListener((windowId) => {
    const token = approvals.tokenOfWindow(windowId);
    if (token && approvals.get(token).answer === null) answerApproval(token, false).catch(() => {});
  });
  chrome.tabs.onUpdated.addListener(async (tabId, change, tab) => {
    if (change.status !== 'complete') return;
    const origin = eligibleOrigin(tab.url || '');
    if (!origin || !(await isArmed(origin))) return;
    try {
      await configureTab(tabId, origin, false);
    } catch (err) {
      await setBadge(tabId, 'error', err.message);
    }
  });
}
