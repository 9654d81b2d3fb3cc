// The chat bridge's content script, watching the page: the newest element
// matching "Extract from" and its text on every change, fed to the arrival
// rules (bridge/core/arrival.js) that decide whether the reply it shows is a
// new one; the messages sent meanwhile (Enter in the chat input, a click on
// the send button, a form submitted — by the person — or the bridge's own
// send), which make the next reply new; and the person's own typing, which
// resets the safety counter.

import * as A from '../core/arrival.js';
import * as inject from './inject.js';
import { pageState } from './page_state.js';
import { queryAll, send } from './dom.js';
import { BRIDGE } from '../../shared/core/messages.js';

const keys = new WeakMap(); // element -> its key in this page load
let nextKey = 0;
const keyOf = (el) => {
  if (!keys.has(el)) keys.set(el, ++nextKey);
  return keys.get(el);
};

let state = A.initial();
let markEl = null; // the newest reply when a message was last sent
let observer = null;
let onChange = () => {};
let lastHuman = 0;

/** The newest reply on the page now: {el, key, text, count, prevKey, followsMark}, key null when there is none. */
function observation() {
  const all = queryAll(pageState.config?.source);
  const el = all[all.length - 1];
  if (!el) return { el: null, key: null, text: '', count: 0, prevKey: null };
  const followsMark = !!markEl && markEl !== el && markEl.isConnected && !!(markEl.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
  const prev = all[all.length - 2];
  return { el, key: keyOf(el), text: el.textContent, count: all.length, prevKey: prev ? keyOf(prev) : null, followsMark };
}

function look() {
  if (!pageState.config) return;
  const before = state.last;
  state = A.observe(state, observation(), Date.now());
  if (state.last?.key !== before?.key || state.last?.text !== before?.text) onChange();
}

/** A message was sent: whatever reply comes after the newest one now is new. */
function sent() {
  const o = observation();
  markEl = o.el;
  state = A.sent(state, o);
}

/** The worker took the current reply as a call: the next one needs a new message or new writing. */
function consumed() {
  markEl = null;
  state = A.consumed(state);
}

/** The reply the newest element shows, with that element: {reply, el, count} or null. */
function current() {
  const all = queryAll(pageState.config?.source);
  const el = all[all.length - 1];
  if (!el || !state.reply || state.reply.key !== keyOf(el)) return null;
  return { reply: state.reply, el, count: all.length };
}

// ---- the person's messages ---------------------------------------------------

function inEditor(target) {
  const editor = inject.destinationEditor(pageState.config?.destination);
  return editor && target instanceof Node && editor.contains(target) ? editor : null;
}

function onKey(event) {
  if (!pageState.config || !event.isTrusted || inject.isWriting() || !inEditor(event.target)) return;
  if (event.key === 'Enter' && !event.shiftKey && !event.altKey && !event.isComposing) sent();
  // Typing in the chat input is a message from the person: the safety counter starts again.
  if (Date.now() - lastHuman >= 1000) {
    lastHuman = Date.now();
    send({ type: BRIDGE.HUMAN });
  }
}

function onClick(event) {
  if (!pageState.config || !event.isTrusted || !(event.target instanceof Element)) return;
  const css = pageState.config.sendButton;
  try {
    if (css && event.target.closest(css)) sent();
  } catch {
    // an invalid selector matches nothing
  }
}

function onSubmit(event) {
  if (pageState.config && event.isTrusted && event.target instanceof Element && inject.destinationEditor(pageState.config.destination)?.closest('form') === event.target) sent();
}

/**
 * Starts watching (or, when already watching, goes on with the new settings).
 * fresh: the replies on the page now are old ones (Start, a reload, other selectors).
 */
function watch(fresh, changed) {
  onChange = changed;
  if (fresh) {
    markEl = null;
    state = A.baseline(state, observation());
  }
  if (observer) return;
  observer = new MutationObserver(look);
  observer.observe(document.documentElement, { childList: true, subtree: true, characterData: true });
  addEventListener('keydown', onKey, true);
  addEventListener('click', onClick, true);
  addEventListener('submit', onSubmit, true);
}

function unwatch() {
  observer?.disconnect();
  observer = null;
  removeEventListener('keydown', onKey, true);
  removeEventListener('click', onClick, true);
  removeEventListener('submit', onSubmit, true);
}

export { watch, unwatch, sent, consumed, current, look };
