// The tabs a person shares with chat sites, as a value: tab id → the sites
// it is shared with and since when. The worker keeps it in
// chrome.storage.session (out of every content script's reach; gone when the
// browser closes, as tab ids are) and changes it only for the person's own
// acts — the share control in the side panel or sidebar, the toolbar menu —
// and when a tab closes. A browser.open_tab call shares the tab it opens
// with the site that asked, and only that one. Pure: no chrome.*.

/** The storage.session key of the table. */
export const SHARES_KEY = 'browser.shares';

/** A fresh copy of the table, with anything malformed dropped. */
export function readShares(value) {
  const out = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [tab, list] of Object.entries(value)) {
    if (!/^[0-9]+$/.test(tab) || !Array.isArray(list)) continue;
    const kept = list.filter((s) => s && typeof s.origin === 'string' && Number.isFinite(s.at)).map((s) => ({ origin: s.origin, at: s.at }));
    if (kept.length) out[tab] = kept;
  }
  return out;
}

/** The table with tabId shared with origin (unchanged when it already is). */
export function share(table, tabId, origin, now) {
  const out = readShares(table);
  const list = out[tabId] || [];
  if (!list.some((s) => s.origin === origin)) out[tabId] = [...list, { origin, at: now }];
  return out;
}

/** The table without tabId's share with origin (every share of the tab when origin is left out). */
export function unshare(table, tabId, origin) {
  const out = readShares(table);
  const list = (out[tabId] || []).filter((s) => origin !== undefined && s.origin !== origin);
  if (list.length) out[tabId] = list;
  else delete out[tabId];
  return out;
}

/** The sites a tab is shared with, in the order they were shared. */
export function sitesOf(table, tabId) {
  return (readShares(table)[tabId] || []).map((s) => s.origin);
}

/** Whether tabId is shared with origin. */
export function isShared(table, tabId, origin) {
  return sitesOf(table, tabId).includes(origin);
}

/** The tabs shared with origin, in the order they were shared. */
export function tabsSharedWith(table, origin) {
  return Object.entries(readShares(table))
    .flatMap(([tab, list]) => list.filter((s) => s.origin === origin).map((s) => ({ tabId: Number(tab), at: s.at })))
    .sort((a, b) => a.at - b.at || a.tabId - b.tabId)
    .map((s) => s.tabId);
}

/** The host part of an origin, as a control's label names the site ("chat.example.com", "127.0.0.1:8000"). */
export function siteName(origin) {
  try {
    return new URL(origin).host;
  } catch {
    return String(origin);
  }
}

/**
 * What the share control shows for a tab: for each armed chat site, whether
 * the tab is shared with it, or why it cannot be.
 * @param {{id: number, title?: string, url?: string}|null} tab the tab the control is about
 * @param {string[]} armed the armed chat sites
 * @param {object} table the shares
 * @param {(tab: object, origin: string) => {ok: boolean, message?: string}} verdict core/tab_eligibility.js shareVerdict
 * @returns {{tabId: number|null, sites: Array<{origin: string, name: string, shared: boolean, why?: string}>}}
 */
export function shareView(tab, armed, table, verdict) {
  if (!tab) return { tabId: null, sites: [] };
  const shared = sitesOf(table, tab.id);
  // A site the tab is shared with stays listed after it was stopped, so the share can still be ended here.
  const origins = [...new Set([...armed, ...shared])].sort();
  return {
    tabId: tab.id,
    sites: origins.map((origin) => {
      const on = shared.includes(origin);
      const v = verdict(tab, origin);
      return { origin, name: siteName(origin), shared: on, armed: armed.includes(origin), ...(v.ok ? {} : { why: v.message }) };
    }),
  };
}
