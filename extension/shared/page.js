// What the extension's pages share for building markup and talking to the
// service worker: $() finds an element by id, h() creates an element with
// its attributes and children, send() sends a runtime message of one of
// shared/core/messages.js's types. Extension pages only.

/** The page's element with this id (null when there is none). */
export const $ = (id) => document.getElementById(id);

/**
 * Creates an element: h('p', {class: 'muted', id: 'x'}, 'text', child).
 * `class` sets className, `text` textContent; true sets an empty attribute,
 * false and null leave it out; null children are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v == null) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  el.append(...children.filter((c) => c != null));
  return el;
}

/**
 * Sets obj[key] (an element's property, its dataset's entry) only when it
 * differs. Pages that refresh every second then lay out and paint only what
 * changed, and a live region is announced again only when its words change.
 */
export function setIfChanged(obj, key, value) {
  if (obj[key] !== value) obj[key] = value;
}

/** Sets el's text only when it differs (setIfChanged). */
export function setText(el, text) {
  setIfChanged(el, 'textContent', String(text ?? ''));
}

/** Sends a message of the given type to the worker and resolves to its answer. */
export function send(type, extra = {}) {
  return chrome.runtime.sendMessage({ type, ...extra });
}

/**
 * A tool's name with line-break chances after each dot and underscore, so a
 * long name wraps between its words ("read_the_" / "clipboard") rather than
 * inside one; the text and its copy stay the name.
 */
export function breakable(name) {
  return String(name).split(/(?<=[._])/).flatMap((part, i) => (i ? [document.createElement('wbr'), part] : [part]));
}
