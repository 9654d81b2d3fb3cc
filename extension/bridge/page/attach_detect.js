// The chat bridge's content script, how this page takes an image: what it
// shows around the chat input — its file inputs (and which are in the
// composer), drop zones around the input, an attach button — described for
// the attach decision (bridge/core/attach_means.js), which this module runs
// for the site's settings; and what a Pick for "Attach images by" means. The composer is the input's nearest container
// that also holds the send button (else its form): where a page shows what
// is attached.

import { BUTTON, EDITABLE } from '../core/pick_rules.js';
import { attachMeans } from '../core/attach_means.js';
import { presetById } from '../core/presets.js';
import { norm, queryAll, visible } from './dom.js';
import { selectorFor } from './pick_selector.js';
import { destinationEditor } from './inject.js';

/** Words that name a control for adding files or images. */
const ATTACH_WORDS = /attach|upload|add (?:photos?|files?|images?|media|content|assets?|an? (?:image|file|photo))|paperclip|insert (?:images?|files?|assets?|media)|file|image/i;
const NOT_ATTACH = /send|submit|stop|voice|micro|search|remove|delete|close/i;

/** The input's composer: its nearest ancestor that also holds the send button, else its form, else a few levels up. */
export function composerOf(editor, sendCss) {
  if (!editor) return null;
  const sends = queryAll(sendCss);
  for (let a = editor.parentElement; a && a !== document.body; a = a.parentElement) {
    if (sends.some((s) => a.contains(s))) return a;
  }
  const form = editor.closest('form');
  if (form) return form;
  let a = editor;
  for (let i = 0; i < 3 && a.parentElement && a.parentElement !== document.body; i++) a = a.parentElement;
  return a;
}

const nameOf = (el) => norm(el.getAttribute('aria-label') || el.getAttribute('title') || el.innerText || '').slice(0, 60);

/** What the page shows: {fileInputs: [{css, accept, near}], dropZones: [{css, why}], attachButton}. */
export function attachFacts(config) {
  const editor = destinationEditor(config?.destination);
  const composer = composerOf(editor, config?.sendButton);
  const around = composer?.parentElement || composer;
  const fileInputs = queryAll('input[type="file"]').map((el) => ({
    css: selectorFor(el, 'attachTarget').selector, accept: el.getAttribute('accept') || '', near: !!around?.contains(el),
  }));
  const dropZones = [];
  for (let a = editor; a && a !== document.documentElement; a = a.parentElement) {
    const why = [...a.attributes].map((x) => x.name).find((n) => /drop/i.test(n)) || [...a.classList].find((c) => /drop-?zone|dropzone|file-?drop/i.test(c));
    if (why) dropZones.push({ css: selectorFor(a, 'attachTarget').selector, why });
  }
  const button = composer ? queryAll(BUTTON).find((b) => composer.contains(b) && visible(b) && ATTACH_WORDS.test(nameOf(b)) && !NOT_ATTACH.test(nameOf(b))) : null;
  return { fileInputs, dropZones, attachButton: button ? nameOf(button) : '' };
}

/** What a selector matches: {count, fileInput, accept} of its first match. */
export function checkTarget(css) {
  const all = queryAll(css);
  const input = all.find((el) => el.matches('input[type="file"]'));
  return { count: all.length, fileInput: !!input, accept: input?.getAttribute('accept') || '' };
}

/** The means this page takes images by, for the site's settings (core/attach_means.js). */
export function pageMeans(config) {
  return attachMeans({ attachBy: config?.attachBy, attachTarget: config?.attachTarget }, presetById(config?.preset), () => attachFacts(config), checkTarget);
}

/**
 * What a Pick for "Attach images by" means: a click on an attach button (or
 * near a file input) is the file input behind it (a button with none behind
 * it: pasting into the input); on the input, pasting; on anything else,
 * dropping onto it. {selector, count, by}.
 */
export function attachPick(el) {
  const label = el.closest('label');
  const control = label?.control || el.closest(BUTTON) || el;
  const own = control.matches?.('input[type="file"]') ? control : control.querySelector?.('input[type="file"]');
  if (own) return { ...selectorFor(own, 'attachTarget'), by: 'file' };
  const editable = el.closest(EDITABLE);
  if (editable) return { ...selectorFor(editable, 'destination'), by: 'paste' };
  if (!control.matches?.(BUTTON)) return { ...selectorFor(el, 'attachTarget'), by: 'drop' };
  // An attach button: the one file input around it, else (its file input made only when clicked) pasting.
  for (let a = control.parentElement, i = 0; a && a !== document.body && i < 3; a = a.parentElement, i++) {
    const found = [...a.querySelectorAll('input[type="file"]')];
    if (found.length === 1) return { ...selectorFor(found[0], 'attachTarget'), by: 'file' };
  }
  return { selector: '', count: 0, by: 'paste' };
}
