// An origin's bridge state and how it shows: whether it is armed and its
// last event (storage.session), its settings (the trusted store), the tabs that show it, and
// their toolbar badges. The rest of the bridge's worker reads and writes this
// state through these helpers.
import { eligibleOrigin, originOfKey, permissionPattern, siteKey } from '../core/selector.js';
import { adoptFromLocal, trustedKeys, trustedSet } from '../../shared/trusted_store.js';
import { features } from '../../shared/browser.js';
import { badgeFor } from '../core/badge.js';
import { normalizeSettings } from '../core/site_settings.js';
import { inTurn } from '../../shared/core/in_turn.js';

/** The host permission pattern of an origin in this browser. */
export const sitePattern = (origin) => permissionPattern(origin, { portless: features().firefox });

export const session = chrome.storage.session;
export const local = chrome.storage.local;

/**
 * The keys storage.local holds, read without their values where the browser
 * can (getKeys: Chrome 130, Firefox 143): the activity log keeps up to 1,000
 * entries there, which an older browser has to read whole.
 */
export async function localKeys() {
  if (typeof local.getKeys === 'function') return local.getKeys();
  return Object.keys(await local.get(null));
}

export async function getSession(key, dflt) {
  const got = await session.get(key);
  return got[key] ?? dflt;
}

export async function armedOrigins() {
  return getSession('armed', {});
}

const armedInTurn = inTurn();

/**
 * Changes storage.session's "armed" map (change(armed) edits it in place)
 * and writes it with `extra` in one set, one change at a time: two origins
 * started or stopped at once both keep theirs.
 */
export function updateArmed(change, extra = {}) {
  return armedInTurn('armed', async () => {
    const armed = await armedOrigins();
    change(armed);
    await session.set({ armed, ...extra });
  });
}

export async function isArmed(origin) {
  return !!(await armedOrigins())[origin];
}

/**
 * An origin's settings, from the trusted store (no content script can write
 * it, Firefox's included: shared/trusted_store.js), normalised and bounded
 * on every read. A value an older version left in storage.local moves over
 * in Chromium and is dropped in Firefox, where a content script may have
 * written it.
 */
export async function loadSettings(origin) {
  return normalizeSettings((await adoptFromLocal(siteKey(origin))) || {}).settings;
}

/** Stores an origin's settings (normalised) where content scripts cannot write. */
export function saveSettings(origin, settings) {
  return trustedSet(siteKey(origin), settings);
}

/** The origins that have settings saved (and those an older version left in storage.local). */
export async function savedOrigins() {
  const keys = new Set([...(await trustedKeys('site:')), ...(await localKeys()).filter((k) => k.startsWith('site:'))]);
  return [...keys].map(originOfKey).filter(Boolean).sort();
}

export async function setLastEvent(origin, event) {
  await session.set({ [`last:${origin}`]: { ...event, at: Date.now() } });
}

export function requireOrigin(origin) {
  const o = eligibleOrigin(origin);
  if (!o || o !== origin) throw new Error('not eligible: only http(s) pages can be armed');
  return o;
}

export function senderOrigin(sender) {
  return eligibleOrigin(sender.url || sender.tab?.url || '');
}

export async function tabsOf(origin) {
  const tabs = await chrome.tabs.query({});
  return tabs.filter((t) => eligibleOrigin(t.url || '') === origin);
}

export async function setBadge(tabId, state, detail) {
  await showBadge(tabId, badgeFor(state, detail));
}

export async function showBadge(tabId, b) {
  try {
    await chrome.action.setBadgeText({ tabId, text: b.text });
    if (b.text) await chrome.action.setBadgeBackgroundColor({ tabId, color: b.color });
    await chrome.action.setTitle({ tabId, title: b.title });
  } catch {
    // the tab went away
  }
}
