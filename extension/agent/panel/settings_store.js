// Agent settings in chrome.storage, and the host permission for the model endpoint.
//
// Non-secret settings live in chrome.storage.local under 'agent.settings'.
// The API key lives in chrome.storage.session (gone after a browser restart)
// unless the user ticks "Remember key on this device", which moves it to
// chrome.storage.local. Thin chrome.* glue; the rules are in core/config_validation.js.

import { DEFAULTS } from '../core/config_validation.js';

export const SETTINGS_KEY = 'agent.settings';
export const API_KEY_KEY = 'agent.apiKey';

/** Loads settings merged over the defaults, plus the API key wherever it is kept. */
export async function loadSettings() {
  const local = await chrome.storage.local.get([SETTINGS_KEY, API_KEY_KEY]);
  const session = await chrome.storage.session.get(API_KEY_KEY).catch(() => ({}));
  const s = { ...DEFAULTS, ...(local[SETTINGS_KEY] || {}) };
  s.apiKey = (s.rememberKey ? local[API_KEY_KEY] : session[API_KEY_KEY]) || session[API_KEY_KEY] || local[API_KEY_KEY] || '';
  return s;
}

/** Saves settings; the key goes to exactly one storage area. */
export async function saveSettings(values) {
  const { apiKey = '', ...rest } = values;
  const clean = {};
  for (const k of Object.keys(DEFAULTS)) if (Object.hasOwn(rest, k)) clean[k] = rest[k];
  await chrome.storage.local.set({ [SETTINGS_KEY]: clean });
  if (clean.rememberKey) {
    await chrome.storage.local.set({ [API_KEY_KEY]: apiKey });
    await chrome.storage.session.remove(API_KEY_KEY);
  } else {
    await chrome.storage.session.set({ [API_KEY_KEY]: apiKey });
    await chrome.storage.local.remove(API_KEY_KEY);
  }
}

/**
 * Makes sure the extension may reach the endpoint: contains first, and
 * request (which needs a user gesture) only when missing.
 * @param {string} originPattern
 * @param {{onAsk?: () => void, signal?: AbortSignal}} [opts] onAsk: called when the browser
 *   is about to ask the person; signal: stops waiting for their answer (rejects with code 'stopped')
 * @returns {Promise<boolean>}
 */
export async function ensureHostPermission(originPattern, { onAsk = () => {}, signal } = {}) {
  const perm = { origins: [originPattern] };
  if (await chrome.permissions.contains(perm)) return true;
  // The browser now asks the person, for as long as they take; meanwhile the page says so, and
  // signal stops the wait (the browser's question stays until it is answered there).
  onAsk();
  const asked = chrome.permissions.request(perm).catch(() => false);
  if (!signal) return asked;
  if (signal.aborted) throw stopped();
  return new Promise((resolve, reject) => {
    const abort = () => reject(stopped());
    signal.addEventListener('abort', abort, { once: true });
    asked.then((ok) => { signal.removeEventListener('abort', abort); resolve(ok); });
  });
}

function stopped() {
  return Object.assign(new Error('stopped'), { code: 'stopped' });
}
