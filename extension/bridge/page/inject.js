// The chat bridge's content script, writing into the chat: the result goes
// into the chat input as a person's typing would (a controlled <textarea>
// gets the value and its input event; a rich editor gets execCommand, then
// beforeinput for editors that only read that), checked after each step since
// editors may undo what they did not do themselves; then the send button is
// clicked once the site enables it.

import { EDITABLE } from '../core/pick_rules.js';
import { norm, queryAll, tick } from './dom.js';
import { clickAndConfirm, enterAndConfirm } from './sent.js';

const SEND_WAIT_MS = 5000;

let writing = false;

/** The editable element a destination selector points at (itself, or the first editable inside). */
function destinationEditor(css) {
  for (const container of queryAll(css)) {
    if (container.matches(EDITABLE)) return container;
    const inner = container.querySelector(EDITABLE);
    if (inner) return inner;
    if (container.isContentEditable) return container;
  }
  return null;
}

function landed(el, text) {
  const have = el.matches('textarea, input') ? el.value : el.innerText;
  return norm(have).includes(norm(text));
}

function writeField(el, text) {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
  el.focus();
  setter.call(el, text);
  el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

function selectAllIn(el) {
  el.focus();
  const range = document.createRange();
  range.selectNodeContents(el);
  const sel = getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
}

async function writeEditable(el, text) {
  // As a person would: select what is there, then insert text. execCommand
  // edits the DOM the way typing does (ProseMirror and Quill read it back);
  // editors that only accept beforeinput (Lexical-like) get that event.
  selectAllIn(el);
  document.execCommand('insertText', false, text);
  await tick();
  if (landed(el, text)) return;
  selectAllIn(el);
  const ev = new InputEvent('beforeinput', { bubbles: true, cancelable: true, inputType: 'insertText', data: text });
  if (el.dispatchEvent(ev)) {
    // Nobody handled it: a plain contenteditable.
    el.textContent = text;
    el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
  }
  await tick();
}

/**
 * The chat input's writers take turns: a result, an inserted prompt and the
 * send button check (which writes a text and empties the input again) never
 * interleave, so none undoes another's text.
 */
let turn = Promise.resolve();
function inTurn(fn) {
  const run = turn.then(fn);
  turn = run.catch(() => {});
  return run;
}

/** Writes text into the destination, in its turn; resolves {ok, error?}. */
function inject(text, css) {
  return inTurn(() => write(text, css));
}

/**
 * Runs fn(write) with the chat input to itself: writes from elsewhere wait
 * until it resolves; write(text, css) writes at once (as inject does).
 */
function withInput(fn) {
  return inTurn(() => fn(write));
}

async function write(text, css) {
  const el = destinationEditor(css);
  if (!el) return { ok: false, error: `Inject into: nothing editable matches ${css}` };
  writing = true;
  try {
    const once = () => (el.matches('textarea, input') ? (writeField(el, text), tick()) : writeEditable(el, text));
    await once();
    // A framework may re-render from its own state: try once more.
    if (!landed(el, text)) await once();
    return landed(el, text) ? { ok: true } : { ok: false, error: 'the text did not land in the destination (the editor rejected it)' };
  } finally {
    writing = false;
  }
}

function enabled(button) {
  return !button.disabled && button.getAttribute('aria-disabled') !== 'true';
}

/**
 * Clicks the send button once it is enabled, within waitMs (longer while a
 * page uploads attached images; before the click, onSend()) and waits for
 * the page to show the text went out (sent.js). Resolves {ok, error?}.
 */
async function clickSend(css, onSend = () => {}, text = '', destination = '', waitMs = SEND_WAIT_MS) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const buttons = queryAll(css);
    const button = buttons.find(enabled);
    if (button) {
      onSend();
      return clickAndConfirm(button, destinationEditor(destination), text);
    }
    if (Date.now() > deadline) {
      return { ok: false, error: buttons.length ? `Send button stayed disabled for ${waitMs / 1000} s` : `Send button: nothing matches ${css}` };
    }
    await tick(100);
  }
}

/** Sends with Enter in the chat input (before that, onSend()) and waits for the page to show the text went out. */
async function enterSend(destination, onSend = () => {}, text = '') {
  const editor = destinationEditor(destination);
  if (!editor) return { ok: false, error: `Inject into: nothing editable matches ${destination}` };
  onSend();
  return enterAndConfirm(editor, text);
}

/** True while inject writes into the chat input (its input events are not the person's typing). */
function isWriting() {
  return writing;
}

export { destinationEditor, inject, withInput, clickSend, enterSend, isWriting };
