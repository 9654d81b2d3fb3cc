// The chat bridge's content script, its DOM helpers: selectors run safely,
// what "visible" means, and messages to the worker that never throw. The
// content script's modules (content.js imports them) run in the extension's
// isolated world, out of the page's reach.

/** Every element matching css; [] for an empty or invalid selector. */
function queryAll(css) {
  try {
    return css ? [...document.querySelectorAll(css)] : [];
  } catch {
    return [];
  }
}

/**
 * Whether a person can see el: on the page, rendered (not hidden, not
 * display:none, not visibility:hidden, here or above) and of some size.
 */
function visible(el) {
  if (!el?.isConnected) return false;
  if (typeof el.checkVisibility === 'function' && !el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true })) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
}

/** Whitespace collapsed, for comparing what an editor holds. */
const norm = (s) => String(s).replace(/\s+/g, ' ').trim();

const tick = (ms = 50) => new Promise((r) => setTimeout(r, ms));

/** A runtime message to the worker; resolves {ok: false, error} when nobody answers. */
function send(message) {
  try {
    return chrome.runtime.sendMessage(message).catch((err) => ({ ok: false, error: String(err?.message || err) }));
  } catch (err) {
    return Promise.resolve({ ok: false, error: String(err?.message || err) });
  }
}

export { queryAll, visible, norm, tick, send };
