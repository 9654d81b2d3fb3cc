// The chat bridge's content script, attaching a result's images to the chat
// message as a person does — a paste into the input, a drop onto it (or the
// page's drop zone), or the page's file input (attach_detect.js decides) —
// and counting an image as attached only once the page shows it: a preview
// or a chip naming the file appears, any upload the page starts has
// finished. One image at a time, each given SHOW_MS to show; an image that
// shows nothing stops the rest (the same means would show nothing either).
// Before the send the previews are looked for again (a page may drop an
// attachment), and after it they must have left the composer with the
// message. What the page said meanwhile (an alert, a toast) is kept for the
// message that says why an image is missing.

import { base64ToBytes } from '../../shared/core/base64.js';
import { describeMeans, acceptsType } from '../core/attach_means.js';
import { norm, queryAll, visible } from './dom.js';
import { destinationEditor } from './inject.js';
import { composerOf, pageMeans } from './attach_detect.js';

/** How long a page has to show an image once it was handed over. */
export const SHOW_MS = 8000;
/** How long the uploads a page starts may take, and its send button to enable again. */
export const UPLOAD_MS = 30_000;
/** How long previews have to leave the composer once the message was sent. */
const LEAVE_MS = 3000;

/** A page's own signs of work in progress. */
const BUSY = '[role="progressbar"], progress, [aria-busy="true"], [data-uploading="true"], [class*="uploading" i], [class*="spinner" i]';
/** Where a page says something went wrong or what it did. */
const SAID = '[role="alert"], [role="status"], [aria-live="assertive"], [aria-live="polite"], [class*="toast" i], [class*="error" i]';

/**
 * Waits until check() returns a value (checked once the page's pending
 * changes are recorded, then on every change of the page and every 100 ms),
 * or ms pass; resolves the value or null.
 */
function until(check, ms) {
  return new Promise((resolve) => {
    let done = false;
    const finish = (v) => {
      if (done) return;
      done = true;
      observer.disconnect();
      clearInterval(timer);
      clearTimeout(limit);
      resolve(v);
    };
    const look = () => {
      const v = check();
      if (v) finish(v);
    };
    const observer = new MutationObserver(look);
    observer.observe(document.documentElement, { childList: true, subtree: true, attributes: true, characterData: true });
    const timer = setInterval(look, 100);
    const limit = setTimeout(() => finish(check() || null), ms);
    // After the mutation observers already watching have been told of what the page just did.
    queueMicrotask(look);
  });
}

/** Records what the page adds while images are attached: new elements, and what it says (as it says it: a toast goes soon). */
function recorder() {
  const added = [];
  const said = [];
  const note = (node) => {
    const el = node instanceof Element ? node : node?.parentElement;
    const box = el?.closest(SAID) || (el instanceof Element ? el.querySelector(SAID) : null);
    if (!box || box.closest('gnosis-notice')) return;
    const text = norm(box.innerText || box.textContent || '');
    if (text && said[said.length - 1] !== text) said.push(text.slice(0, 160));
  };
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n instanceof Element && !n.localName.startsWith('gnosis-')) added.push(n);
        note(n);
      }
      if (r.type === 'characterData') note(r.target);
      if (r.type === 'attributes' && r.target instanceof Element) added.push(r.target);
    }
  });
  observer.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ['src', 'style', 'class', 'hidden'] });
  return {
    added,
    stop: () => observer.disconnect(),
    /** The last thing the page said since recording started (an alert, a toast), '' when nothing. */
    said: () => said[said.length - 1] || '',
  };
}

/** Where a page shows what is attached: around its composer (a row of chips above the input, say). */
const previewArea = (composer) => composer?.parentElement || composer || document.body;

/**
 * An element of the page that shows file: a new image (its source not in
 * seen) drawn from a blob or data URL around the composer, or anything
 * naming the file.
 */
function shows(el, file, composer, seen) {
  if (!el.isConnected || el.closest('gnosis-notice, gnosis-detect, gnosis-pick, script, style')) return null;
  const stem = file.name.replace(/\.[^.]+$/, '');
  const imgs = el.localName === 'img' ? [el] : [...el.querySelectorAll('img')];
  const img = previewArea(composer).contains(el) && imgs.find((i) => /^(blob|data):/.test(i.getAttribute('src') || '') && !seen.has(i.getAttribute('src')));
  if (img) return { src: img.getAttribute('src') };
  if ([el.getAttribute('title'), el.getAttribute('aria-label'), el.getAttribute('alt'), el.textContent].some((t) => t && t.includes(stem))) return { name: stem };
  return null;
}

/** Whether the page still shows what `evidence` named: its image source or the file's name, in the composer. */
function stillShown(evidence, composer) {
  const scope = previewArea(composer);
  if (evidence.src) return [...scope.querySelectorAll('img')].some((i) => i.getAttribute('src') === evidence.src);
  return norm(scope.textContent || '').includes(evidence.name) || [...scope.querySelectorAll('[title], [aria-label], [alt]')]
    .some((n) => [n.getAttribute('title'), n.getAttribute('aria-label'), n.getAttribute('alt')].some((t) => t && t.includes(evidence.name)));
}

/**
 * A DataTransfer holding file that the page's own code can read. Firefox
 * keeps, with each item, who added it, and hides it from a page when a
 * content script did: there the DataTransfer and the file are made in the
 * page's own compartment (past the content script's Xray wrapper).
 */
function transferOf(file) {
  const page = window.wrappedJSObject;
  const clone = globalThis.cloneInto;
  const dt = page && typeof clone === 'function' ? new page.DataTransfer() : new DataTransfer();
  dt.items.add(page && typeof clone === 'function' ? clone(file, window) : file);
  return dt;
}

/**
 * Hands file to the page by means. Returns {refused} (why it could not be
 * handed over) or {taken}: whether the page took the paste or the drop (a
 * page that handles one cancels the browser's own handling; a file input
 * always takes it).
 */
function handOver(means, file, editor) {
  const dt = transferOf(file);
  if (means.by === 'paste') {
    editor.focus();
    const paste = new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true });
    // Firefox gives a made-up paste a copy of its clipboardData, without the files: the page is shown ours.
    if (!paste.clipboardData?.files?.length && paste.wrappedJSObject) Object.defineProperty(paste.wrappedJSObject, 'clipboardData', { value: dt, configurable: true });
    return { taken: !editor.dispatchEvent(paste) };
  }
  if (means.by === 'drop') {
    const target = (means.target && queryAll(means.target)[0]) || editor;
    const r = target.getBoundingClientRect();
    const at = { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 };
    let taken = false;
    for (const type of ['dragenter', 'dragover', 'drop']) {
      taken = !target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true, composed: true, ...at }));
    }
    return { taken };
  }
  const input = queryAll(means.target).find((el) => el.matches('input[type="file"]'));
  if (!input) return { refused: `${means.target} is not a file input on the page` };
  if (!acceptsType(input.getAttribute('accept'), file.type)) return { refused: `the page's file input takes only ${input.getAttribute('accept')}, not ${file.type}` };
  input.files = dt.files;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  input.dispatchEvent(new Event('change', { bubbles: true }));
  return { taken: true };
}

/** The page's signs of work that were not there before: uploads in progress. */
const busyNow = (composer, before) => queryAll(BUSY).filter((el) => visible(el) && !before.has(el) && previewArea(composer).contains(el));

/**
 * Attaches the images a verdict names (payloads: their data, by number).
 * Resolves {means, list, evidence}: list, for every image of the result in
 * order, {...its meta, attached, why?, byChoice?} (byChoice: left out by the
 * site's settings, no failure); evidence, what shows each attached
 * image (for the checks before and after the send).
 * @param {Array<object>} images the verdict's image list (bridge/worker/image_prep.js)
 * @param {Map<number, {mime: string, base64: string, name: string}>} payloads
 * @param {object} config the page's settings (destination, sendButton, attachBy, attachTarget, preset)
 */
export async function attachImages(images, payloads, config) {
  const editor = destinationEditor(config.destination);
  let means = pageMeans(config);
  const composer = composerOf(editor, config.sendButton);
  const list = [];
  const evidence = new Map();
  let stopWhy = '';
  let how = describeMeans(means);
  const rec = recorder();
  const busyBefore = new Set(queryAll(BUSY));
  // Image sources shown before: a preview counts only when it is new.
  const seen = new Set(queryAll('img').map((i) => i.getAttribute('src')));
  try {
    for (const image of images) {
      if (image.leftOut) {
        list.push({ ...image, attached: false, why: image.leftOut });
        continue;
      }
      const payload = payloads.get(image.n);
      const fail = (why, byChoice = false) => list.push({ ...image, attached: false, why, ...(byChoice ? { byChoice } : {}) });
      if (!payload) fail('its data did not reach the page');
      else if (means.by === 'none') fail(means.why, means.from === 'settings');
      else if (means.problem) fail(`${how} cannot be used: ${means.problem} (Attach images by, on the options page)`);
      else if (!editor) fail(`the chat input (${config.destination}) is not on the page`);
      else if (stopWhy) fail(stopWhy);
      else {
        const file = new File([base64ToBytes(payload.base64)], payload.name, { type: payload.mime });
        let handed = handOver(means, file, editor);
        if (handed.refused) {
          fail(handed.refused);
          stopWhy = `not tried: ${handed.refused}`;
          continue;
        }
        // A page guessed to take pastes that did not take this one: a drop onto the input, as a person would try next.
        if (!handed.taken && means.from === 'page' && means.by === 'paste') {
          means = { ...means, by: 'drop', target: '', why: `${means.why}; the page did not take a paste, so images are dropped onto the input` };
          how = describeMeans(means);
          handed = handOver(means, file, editor);
          if (!handed.taken) {
            const why = 'the page took neither a paste into the input nor a drop onto it';
            fail(why);
            stopWhy = `not tried: ${why}`;
            continue;
          }
        }
        const shown = await until(() => {
          for (const el of rec.added) {
            const ev = shows(el, file, composer, seen);
            if (ev) return ev;
          }
          return null;
        }, SHOW_MS);
        if (!shown) {
          const said = rec.said();
          const why = `the page showed no preview within ${SHOW_MS / 1000} s after ${how}${said ? `; it said: “${said}”` : ''}`;
          fail(why);
          stopWhy = `not tried, since image ${image.n} showed nothing by ${how}`;
          continue;
        }
        if (shown.src) seen.add(shown.src);
        evidence.set(image.n, shown);
        list.push({ ...image, attached: true });
      }
    }
    // Uploads the page started must finish before an image counts as attached.
    if (evidence.size && !(await until(() => !busyNow(composer, busyBefore).length, UPLOAD_MS))) {
      for (const item of list) {
        if (!item.attached) continue;
        item.attached = false;
        item.why = `the page's upload did not finish within ${UPLOAD_MS / 1000} s`;
        evidence.delete(item.n);
      }
    }
    // A page may take an image back while it uploads (a refusal, a limit).
    for (const item of list) {
      if (item.attached && !stillShown(evidence.get(item.n), composer)) drop(item, evidence, rec.said());
    }
  } finally {
    rec.stop();
  }
  return { means, list, evidence, composer };
}

function drop(item, evidence, said) {
  item.attached = false;
  item.why = `the page showed it, then removed it${said ? `; it said: “${said}”` : ''}`;
  evidence.delete(item.n);
}

/**
 * Before the send: whether the page still shows each attached image;
 * an image it dropped is marked so. Returns true when one was dropped.
 */
export function recheck(outcome) {
  let changed = false;
  for (const item of outcome.list) {
    if (item.attached && !stillShown(outcome.evidence.get(item.n), outcome.composer)) {
      drop(item, outcome.evidence, '');
      changed = true;
    }
  }
  return changed;
}

/**
 * After the send: waits for the attached images to leave the composer with
 * the message; returns the ones still in it (sent without them).
 */
export async function leftBehind(outcome) {
  const attached = outcome.list.filter((i) => i.attached);
  if (!attached.length || !outcome.composer?.isConnected) return [];
  const inComposer = (item) => {
    const ev = outcome.evidence.get(item.n);
    if (ev.src) return [...outcome.composer.querySelectorAll('img')].some((i) => i.getAttribute('src') === ev.src);
    return norm(outcome.composer.textContent || '').includes(ev.name);
  };
  await until(() => !attached.some(inComposer), LEAVE_MS);
  return attached.filter(inComposer);
}
