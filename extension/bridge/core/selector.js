// Selectors, per-page keys and tab picking for the chat bridge. Pure: no
// chrome.* and no DOM. The options page and the worker turn what the user
// typed (a class, an id or a CSS selector) into one
// CSS selector here, and the content script only runs querySelectorAll on it.

/**
 * The origin of an http(s) URL, or null for pages that are not eligible
 * (chrome://, file://, about:, extension pages, malformed URLs).
 */
export function eligibleOrigin(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
}

/**
 * The optional host permission pattern that covers one origin. Firefox's
 * match patterns cannot name a port (`http://host:3000/*` never matches), so
 * there the pattern covers every port of the host.
 * @param {string} origin
 * @param {{portless?: boolean}} [opts] portless: leave the port out (Firefox)
 */
export function permissionPattern(origin, { portless = false } = {}) {
  if (!portless) return `${origin}/*`;
  const u = new URL(origin);
  return `${u.protocol}//${u.hostname}/*`;
}

/** The chrome.storage key of an origin's settings. */
export function siteKey(origin) {
  return `site:${origin}`;
}

/** The origin of a siteKey, or null. */
export function originOfKey(key) {
  return typeof key === 'string' && key.startsWith('site:') ? key.slice(5) : null;
}

const CSS_SYNTAX = /[.#[\]:>+~*,()="'|^$]/;
const IDENT = /^-?[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Turns what the user typed into one CSS selector.
 * - text with CSS syntax (".a", "#b", "div > p", "[data-x]") is used as is;
 * - one bare word is an id or a class: "chat" → "#chat, .chat";
 * - several bare words are a class list as copied from a class attribute:
 *   "markdown prose" → ".markdown.prose".
 * @returns {string|null} null when empty or not usable.
 */
export function toCss(input) {
  if (typeof input !== 'string') return null;
  const text = input.trim();
  if (!text) return null;
  if (CSS_SYNTAX.test(text)) return text;
  const words = text.split(/\s+/);
  if (!words.every((w) => IDENT.test(w))) return null;
  if (words.length === 1) return `#${words[0]}, .${words[0]}`;
  return words.map((w) => `.${w}`).join('');
}

/**
 * Picks the tab the options page is about: the most recently used tab whose
 * URL is eligible (or, with origin, whose origin is that origin).
 * @param {Array<{id:number,url?:string,lastAccessed?:number,active?:boolean}>} tabs
 * @returns {object|null}
 */
export function pickTab(tabs, origin) {
  const candidates = (tabs || []).filter((t) => {
    const o = eligibleOrigin(t.url || '');
    return o && (!origin || o === origin);
  });
  candidates.sort((a, b) => (b.lastAccessed || 0) - (a.lastAccessed || 0) || Number(!!b.active) - Number(!!a.active));
  return candidates[0] || null;
}

/**
 * What the options page says about one field's live check against the page:
 * the text and how it reads (ok, bad, warn, or '' for neutral). "Extract
 * from" is a list: a selector matching one element there is flagged, since it
 * usually names one message (a Pick inside it, or a path to it) rather than
 * every assistant message. "Still replying while" counts only visible
 * elements: a stop button hidden after the reply does not mean replying. A
 * send button that is a container around a button is wrong: the click lands
 * on the container.
 * @param {'source'|'destination'|'sendButton'|'streaming'} field
 * @param {{count?: number, visible?: number, editable?: boolean, holdsButton?: string, withText?: number, empty?: number, error?: string}|undefined} result
 *   the page's answer; withText, empty: what the send button selector matches with the input holding text and empty
 * @param {string|null} css the selector that was checked
 * @returns {{text: string, kind: 'ok'|'bad'|'warn'|''}}
 */
export function checkMessage(field, result, css) {
  if (!css || result?.error) return { text: '✗ not a valid selector', kind: 'bad' };
  const count = result?.count || 0;
  // The send button checked with the input empty and holding text: a selector of a state (a class the page sets only while empty) names nothing once there is text.
  if (field === 'sendButton' && result?.withText === 0 && (result.empty ?? count) > 0) {
    return { text: `✗ matches ${result.empty ?? count} only while the input is empty: once it holds text it matches nothing, so the send would fail; Pick the send button again (${css})`, kind: 'bad' };
  }
  if (field === 'sendButton' && !count && result?.withText > 0 && !result.holdsButton) {
    return { text: `✓ matches ${result.withText} element${result.withText === 1 ? '' : 's'} once the input holds text (${css})`, kind: 'ok' };
  }
  if (!count) {
    if (field === 'streaming') return { text: `no reply streaming now (${css})`, kind: '' };
    if (field === 'source') return { text: `no message on the page yet (${css})`, kind: '' };
    if (field === 'sendButton') return { text: `not on the page now; some sites show it only once there is text (${css})`, kind: '' };
    return { text: `✗ matches nothing on the page (${css})`, kind: 'bad' };
  }
  if (field === 'destination' && !result.editable) return { text: `✗ matches ${count}, but nothing editable inside`, kind: 'bad' };
  if (field === 'sendButton' && result.holdsButton) {
    return { text: `✗ matches a <${result.holdsButton}> around a button, not the button: clicking it sends nothing; Pick the send button again (${css})`, kind: 'bad' };
  }
  if (field === 'streaming' && !result.visible) {
    return { text: `matches ${count} hidden element${count === 1 ? '' : 's'}: not replying now; only a visible one means replying (${css})`, kind: '' };
  }
  if (field === 'source' && count === 1) {
    return { text: `⚠ matches only 1 element (${css}): Extract from should match every assistant message; with two or more replies on the page, Pick one again`, kind: 'warn' };
  }
  return { text: `✓ matches ${count} element${count === 1 ? '' : 's'} (${css})`, kind: 'ok' };
}
