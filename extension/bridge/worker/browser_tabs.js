// The tabs a person shares with chat sites (core/browser_shares.js is the
// table; this is its chrome.* glue): kept in chrome.storage.session, changed
// only by the person — the share control in the side panel or sidebar
// (extension pages, BROWSER_SHARE messages) and the toolbar button's menu
// ("Share this tab with" → a site, a browser-drawn menu no page can
// reach) — and by a tab closing. A shared tab shows it on itself: its
// toolbar badge and title say with which site, and the side panel's control
// says so whenever the tab is in front. Unsharing is at once: whatever a
// call is doing on the tab is stopped (onUnshare).
import {
  SHARES_KEY, isShared as sharedIn, readShares, share, shareView, siteName, sitesOf, tabsSharedWith, unshare,
} from '../core/browser_shares.js';
import { shareVerdict } from '../core/tab_eligibility.js';
import { armedOrigins, getSession, session, setBadge, showBadge } from './site_state.js';
import { inTurn } from '../../shared/core/in_turn.js';
import { BROWSER_SHARE } from '../../shared/core/messages.js';

const inOrder = inTurn();
const unshareListeners = new Set();

/** The table now. */
export async function shares() {
  return readShares(await getSession(SHARES_KEY, {}));
}

/** Whether tabId is shared with origin now. */
export async function isShared(tabId, origin) {
  return sharedIn(await shares(), tabId, origin);
}

/** The tabs shared with origin, in the order they were shared. */
export async function sharedTabs(origin) {
  return tabsSharedWith(await shares(), origin);
}

/**
 * Hears of every share that ended (unshared by the person, the tab closed):
 * fn({tabId, origin}) — origin undefined when the tab's every share ended.
 */
export function onUnshare(fn) {
  unshareListeners.add(fn);
  return () => unshareListeners.delete(fn);
}

/** Changes the table, one change at a time, and shows the tab's new state. */
function change(tabId, edit) {
  return inOrder(SHARES_KEY, async () => {
    const next = edit(await shares());
    await session.set({ [SHARES_KEY]: next });
    await showShared(tabId, sitesOf(next, tabId));
    return next;
  });
}

/** The badge of a shared tab: SH, and which sites in its title. */
async function showShared(tabId, sites) {
  const armed = await armedOrigins();
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  // A tab of an armed chat site keeps the bridge's own badge.
  if (!tab || Object.keys(armed).some((o) => String(tab.url || '').startsWith(`${o}/`))) return;
  if (!sites.length) {
    await setBadge(tabId, 'off');
    return;
  }
  await showBadge(tabId, {
    text: 'SH', color: '#8250df',
    title: `Gnosis: this tab is shared with ${sites.map(siteName).join(', ')}: its model can see this tab and act on it as you allow there. Right-click this button to stop sharing.`,
  });
}

/**
 * Shares a tab with an armed chat site, or refuses saying why.
 * @param {number} tabId
 * @param {string} origin
 * @param {{address?: string}} [o] address: where a tab just opened is going
 *   (Firefox shows such a tab as about:blank until it starts loading)
 * @returns {Promise<{ok: true}|{ok: false, error: string}>}
 */
export async function shareTab(tabId, origin, { address } = {}) {
  if (!(await armedOrigins())[origin]) return { ok: false, error: `${origin} is not armed: start it on its options page first` };
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  const v = shareVerdict(tab && address ? { ...tab, url: address, pendingUrl: undefined } : tab, origin);
  if (!v.ok) return { ok: false, error: v.message };
  await change(tabId, (t) => share(t, tabId, origin, Date.now()));
  return { ok: true };
}

/** Ends a tab's share with origin (every share of the tab when origin is left out), at once. */
export async function unshareTab(tabId, origin) {
  await change(tabId, (t) => unshare(t, tabId, origin));
  for (const fn of unshareListeners) {
    try { fn({ tabId, origin }); } catch { /* a listener must not keep the share */ }
  }
  return { ok: true };
}

/** What the share control shows for a tab. */
async function viewOf(tabId) {
  const tab = tabId == null ? null : await chrome.tabs.get(tabId).catch(() => null);
  return shareView(tab, Object.keys(await armedOrigins()), await shares(), shareVerdict);
}

// ---- the toolbar button's menu ---------------------------------------------

const MENU = 'gnosis-share';
const itemId = (origin) => `${MENU}:${origin}`;
let menuSites = [];

const menus = () => globalThis.chrome?.contextMenus;

function create(props) {
  return new Promise((resolve) => menus().create(props, () => resolve(void chrome.runtime.lastError)));
}

/** Builds "Share this tab with" → one checkbox per armed site, for the tab in front. */
async function syncMenu() {
  if (!menus()?.create) return;
  const sites = Object.keys(await armedOrigins()).sort();
  if (sites.join() !== menuSites.join() || !menuSites.length) {
    await menus().remove(MENU).catch(() => {});
    await create({ id: MENU, title: 'Share this tab with', contexts: ['action'] });
    if (!sites.length) await create({ id: `${MENU}:none`, parentId: MENU, title: 'No chat site is armed: start one first', enabled: false, contexts: ['action'] });
    for (const origin of sites) await create({ id: itemId(origin), parentId: MENU, type: 'checkbox', title: siteName(origin), contexts: ['action'] });
    menuSites = sites;
  }
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true }).catch(() => []);
  const table = await shares();
  for (const origin of sites) {
    const on = Boolean(tab && sharedIn(table, tab.id, origin));
    const v = tab ? shareVerdict(tab, origin) : { ok: false };
    await menus().update(itemId(origin), {
      checked: on, enabled: on || v.ok,
      title: on || v.ok ? siteName(origin) : `${siteName(origin)} (not this tab: ${v.message || 'no tab'})`,
    }).catch(() => {});
  }
}

const resync = () => inOrder('menu', syncMenu).catch(() => {});

/** Message handlers for the share control (extension pages only). */
export const handlers = {
  [BROWSER_SHARE.VIEW]: {
    from: 'extension',
    async run({ tabId }) {
      return { ok: true, ...(await viewOf(Number.isInteger(tabId) ? tabId : null)) };
    },
  },
  [BROWSER_SHARE.SET]: {
    from: 'extension',
    async run({ tabId, origin, share: on }) {
      if (!Number.isInteger(tabId) || typeof origin !== 'string') return { ok: false, error: 'which tab and which site?' };
      const r = on === true ? await shareTab(tabId, origin) : await unshareTab(tabId, origin);
      resync();
      return r.ok ? { ok: true, ...(await viewOf(tabId)) } : r;
    },
  },
};

/** Wires the menu, the badges and the end of a closed tab's shares. */
export function initBrowserTabs() {
  chrome.tabs.onRemoved.addListener((tabId) => {
    shares().then((t) => (sitesOf(t, tabId).length ? unshareTab(tabId) : null)).catch(() => {});
  });
  chrome.tabs.onReplaced?.addListener((added, removed) => {
    // A prerendered page took the tab's place: its shares move with it.
    inOrder(SHARES_KEY, async () => {
      const t = await shares();
      if (!t[removed]) return;
      t[added] = t[removed];
      delete t[removed];
      await session.set({ [SHARES_KEY]: t });
    }).catch(() => {});
  });
  chrome.tabs.onUpdated.addListener((tabId, info) => {
    if (info.status !== 'complete' && info.url === undefined) return;
    shares().then((t) => {
      if (sitesOf(t, tabId).length) showShared(tabId, sitesOf(t, tabId));
    }).catch(() => {});
    resync();
  });
  chrome.tabs.onActivated.addListener(resync);
  chrome.windows?.onFocusChanged?.addListener(resync);
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'session' && (changes.armed || changes[SHARES_KEY])) resync();
  });
  menus()?.onClicked.addListener((info, tab) => {
    const id = String(info.menuItemId);
    if (!id.startsWith(`${MENU}:`) || !tab?.id) return;
    const origin = id.slice(MENU.length + 1);
    (info.checked ? shareTab(tab.id, origin) : unshareTab(tab.id, origin)).then(resync, resync);
  });
  resync();
}
