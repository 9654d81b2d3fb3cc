// Which tabs a chat site's browser.* calls may use: only tabs the person
// shares with that site, and of those never the chat's own tab, a page of
// the chat site itself, an extension's page, a page of the browser itself
// (chrome://, about:, …), an extension store (where browsers let no
// extension act) or anything that is not an http(s) page. The same rules
// decide whether a tab can be shared at all (the share control offers only
// tabs that can). Every refusal says why, in words the model reads and the
// share control shows. Pure: no chrome.*.

/** Why a tab is refused, as details.reason says it (a call on a tab that does not exist is NOT_SHARED). */
export const REFUSED = Object.freeze({
  NO_TAB: 'no-tab',
  CHAT_TAB: 'chat-tab',
  CHAT_SITE: 'chat-site',
  EXTENSION_PAGE: 'extension-page',
  BROWSER_PAGE: 'browser-page',
  STORE: 'extension-store',
  NOT_WEB: 'not-web',
  NOT_SHARED: 'not-shared',
});

const EXTENSION_SCHEMES = ['chrome-extension:', 'moz-extension:', 'extension:', 'safari-web-extension:'];
const BROWSER_SCHEMES = ['chrome:', 'edge:', 'brave:', 'vivaldi:', 'opera:', 'about:', 'devtools:', 'chrome-devtools:', 'view-source:', 'chrome-search:', 'chrome-untrusted:', 'resource:', 'moz:', 'chrome-native:'];

/** The stores' addresses (host, and a path the store lives under). */
const STORES = [
  { host: 'chromewebstore.google.com', path: '/' },
  { host: 'chrome.google.com', path: '/webstore' },
  { host: 'microsoftedge.microsoft.com', path: '/addons' },
  { host: 'addons.mozilla.org', path: '/' },
  { host: 'addons.opera.com', path: '/' },
];

/** An address cut for a sentence. */
function shown(address) {
  const a = String(address || '');
  return a.length > 80 ? `${a.slice(0, 79)}…` : a;
}

function parse(address) {
  try {
    return new URL(address);
  } catch {
    return null;
  }
}

/** The origin of an http(s) address, or ''. */
export function webOrigin(address) {
  const u = parse(address);
  return u && (u.protocol === 'http:' || u.protocol === 'https:') ? u.origin : '';
}

/**
 * Why an address can never be shared, or null when it is an http(s) page
 * outside the stores and the chat site: {reason, why} — why completes "tab N …".
 */
function refusedAddress(address, chatOrigin) {
  const u = parse(address);
  const scheme = u?.protocol || `${String(address).split(':')[0]}:`;
  if (EXTENSION_SCHEMES.includes(scheme)) {
    return { reason: REFUSED.EXTENSION_PAGE, why: `shows an extension's page (${shown(address)}); extension pages are never shared` };
  }
  if (BROWSER_SCHEMES.includes(scheme)) {
    return { reason: REFUSED.BROWSER_PAGE, why: `shows a page of the browser itself (${shown(address)}); the browser's own pages are never shared` };
  }
  if (!u || (scheme !== 'http:' && scheme !== 'https:')) {
    return { reason: REFUSED.NOT_WEB, why: `shows ${shown(address) || 'no address'}, which is not an http:// or https:// page; only web pages can be shared` };
  }
  const host = u.hostname.toLowerCase();
  if (STORES.some((s) => s.host === host && (u.pathname === s.path || u.pathname.startsWith(s.path === '/' ? '/' : `${s.path}/`)))) {
    return { reason: REFUSED.STORE, why: `shows the browser's extension store (${u.host}), where the browser lets no extension act` };
  }
  if (chatOrigin && u.origin === chatOrigin) {
    return { reason: REFUSED.CHAT_SITE, why: `shows the chat site itself (${chatOrigin}); a chat site is never handed its own pages` };
  }
  return null;
}

/**
 * Whether a tab can be shared with a chat site.
 * @param {{id?: number, url?: string, pendingUrl?: string}|null} tab
 * @param {string} chatOrigin the site it would be shared with
 * @returns {{ok: true}|{ok: false, reason: string, message: string}} message: a sentence about the tab
 */
export function shareVerdict(tab, chatOrigin) {
  if (!tab) return { ok: false, reason: REFUSED.NO_TAB, message: 'That tab is closed.' };
  for (const address of [tab.url, tab.pendingUrl].filter((a) => a !== undefined && a !== '')) {
    const r = refusedAddress(address, chatOrigin);
    if (r) return { ok: false, reason: r.reason, message: `This tab ${r.why}.` };
  }
  if (!tab.url && !tab.pendingUrl) return { ok: false, reason: REFUSED.NOT_WEB, message: 'This tab has no web page yet.' };
  return { ok: true };
}

/**
 * Whether a chat site's call may use a tab now. A tab that is not shared
 * with the site is refused before anything about it is looked at, and in the
 * same words as a tab that does not exist: the refusal tells the model
 * nothing about the person's other tabs.
 * @param {object} o
 * @param {number} o.tabId the tab the call names
 * @param {{id: number, url?: string, pendingUrl?: string}|null} o.tab the tab (null: no such tab)
 * @param {string} o.origin the chat site making the call
 * @param {number} [o.chatTabId] the tab the call came from
 * @param {boolean} o.shared whether the person shares the tab with origin
 * @returns {{ok: true}|{ok: false, reason: string, message: string}} message: what the model reads
 */
export function callVerdict({ tabId, tab, origin, chatTabId, shared }) {
  const list = 'browser.list_tabs lists the tabs shared with this chat';
  if (tab && tab.id === chatTabId) {
    return { ok: false, reason: REFUSED.CHAT_TAB, message: `tab ${tabId} is this chat's own tab, which the chat never acts on; ${list}` };
  }
  if (!tab || !shared) {
    return {
      ok: false, reason: REFUSED.NOT_SHARED,
      message: `tab ${tabId} is not shared with this chat: only the user can share a tab, with "Share with ${origin}" in Gnosis's side panel or toolbar menu; ${list}`,
    };
  }
  for (const address of [tab.url, tab.pendingUrl].filter((a) => a !== undefined && a !== '')) {
    const r = refusedAddress(address, origin);
    if (r) return { ok: false, reason: r.reason, message: `tab ${tabId} is shared with this chat but ${r.why}; it can be used again once it shows a web page` };
  }
  return { ok: true };
}
