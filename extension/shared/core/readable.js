// A tab's readable content, as the text a model reads: its visible text in
// page order, with its links, buttons and fields each on a line of its own
// with a reference (e12) the actions take, what it is called and holds, and
// where it is in the view on the 0..999 scale of a screenshot. Bounded: a
// long page is cut (text, elements, every name and value) and says so; what
// lies above the view goes first, so scrolling and reading again reads on. A
// password field's value is never read. Built from what the page collector
// (shared/tab_reader.js) gathered in the page; everything in it is the
// page's and may lie, which is why this is only ever text for the model.
// Pure: no chrome.*, no DOM.

import { COORD_MAX } from './coords.js';

/** The bounds of what one read returns. */
export const READ_LIMITS = Object.freeze({ chars: 12_000, elements: 250, textRun: 400, name: 100, value: 200 });

// C0 and C1 controls and the direction and zero-width marks, which change how text shows without being seen.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g; // eslint-disable-line no-control-regex

/** Text on one line: hidden characters out, runs of white space as one space, at most max characters. */
export function oneLine(text, max) {
  const s = String(text ?? '').replace(HIDDEN, ' ').replace(/\s+/g, ' ').trim();
  const chars = [...s];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : s;
}

/** Where a box's centre is: in the view as {x, y} on the 0..999 scale, or the side of the view it is beyond. */
export function placeOf(box, viewport) {
  if (!box || !viewport?.width || !viewport?.height) return { off: 'nowhere on screen' };
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  if (box.width <= 0 || box.height <= 0) return { off: 'with no size on screen' };
  if (cy < 0) return { off: 'above the view' };
  if (cy >= viewport.height) return { off: 'below the view' };
  if (cx < 0) return { off: 'left of the view' };
  if (cx >= viewport.width) return { off: 'right of the view' };
  return { x: Math.round((cx / viewport.width) * COORD_MAX), y: Math.round((cy / viewport.height) * COORD_MAX) };
}

/** One element's line: [ref] role "name" value …, state, link target, place. */
function elementLine(e, ref, viewport) {
  const bits = [`[${ref}]`, oneLine(e.role, 30) || 'element'];
  const name = oneLine(e.name, READ_LIMITS.name);
  if (name) bits.push(JSON.stringify(name));
  if (e.password) bits.push('(a password field: its value is not read)');
  else if (e.value !== undefined && e.value !== null) bits.push(`value ${JSON.stringify(oneLine(e.value, READ_LIMITS.value))}`);
  if (e.checked === true) bits.push('checked');
  if (e.checked === false) bits.push('not checked');
  if (e.disabled) bits.push('disabled');
  if (e.href) bits.push(`→ ${oneLine(e.href, 200)}`);
  const p = placeOf(e.box, viewport);
  bits.push(p.off ? `(${p.off})` : `at ${p.x},${p.y}`);
  return bits.join(' ');
}

/**
 * Builds the text of a read.
 * @param {object} snap what the collector returned: {title, url, viewport: {width, height},
 *   scroll: {x, y}, page: {width, height}, items: Array<{kind: 'text', text, heading?}
 *   | {kind: 'element', i, role, name, value?, password?, checked?, disabled?, href?, box}>
 *   (a text item's bottom: where it ends, in CSS pixels from the top of the view),
 *   complete: boolean (false when the collector stopped at its own bound), frames: number}
 * @param {string[]} refs each collected element's reference, by its index i
 * @param {{tabId: number, limits?: object}} o
 * @returns {{text: string, elements: number, cut: boolean}}
 */
export function readableText(snap, refs, { tabId, limits = READ_LIMITS } = {}) {
  const v = snap.viewport || {};
  const head = [
    `Tab ${tabId}: ${oneLine(snap.title, 200) || '(no title)'} — ${oneLine(snap.url, 500)}`,
    `The view is ${v.width}×${v.height} CSS pixels, scrolled to ${snap.scroll?.x ?? 0},${snap.scroll?.y ?? 0} of a page ${snap.page?.width ?? '?'}×${snap.page?.height ?? '?'}. An element in view says where it is as x,y from 0 to ${COORD_MAX} (the scale of browser.screenshot); its ref works whether it is in view or not.`,
    '',
  ].join('\n');
  const all = snap.items || [];
  const bottomOf = (item) => (item.kind === 'element' ? (item.box ? item.box.y + item.box.height : 0) : item.bottom ?? 0);
  // What is above the view is left out first when the whole page would not fit.
  const size = all.reduce((n, item) => n + (item.kind === 'element' ? 60 : Math.min(String(item.text || '').length, limits.textRun)), 0);
  const firstInView = all.findIndex((item) => bottomOf(item) > 0);
  const skipped = size > limits.chars && firstInView > 0 ? firstInView : 0;
  const lines = [];
  let chars = 0;
  let elements = 0;
  let shownText = 0;
  let totalText = 0;
  let totalElements = 0;
  let full = false;
  for (const [index, item] of all.entries()) {
    let line;
    const above = index < skipped;
    if (item.kind === 'element') {
      totalElements++;
      if (above || full || elements >= limits.elements || refs[item.i] === undefined) continue;
      line = elementLine(item, refs[item.i], v);
      elements++;
    } else {
      const text = oneLine(item.text, limits.textRun);
      if (!text) continue;
      totalText++;
      if (above || full) continue;
      line = item.heading ? `${'#'.repeat(Math.min(6, item.heading))} ${text}` : text;
      shownText++;
    }
    if (chars + line.length + 1 > limits.chars) {
      full = true;
      if (item.kind === 'element') elements--;
      else shownText--;
      continue;
    }
    lines.push(line);
    chars += line.length + 1;
  }
  const notes = [];
  if (!lines.length) notes.push('(The page shows no text and no element one can use.)');
  if (snap.frames > 0) notes.push(`(${snap.frames} frame${snap.frames === 1 ? '' : 's'} inside the page ${snap.frames === 1 ? 'was' : 'were'} not read.)`);
  const cut = full || skipped > 0 || elements < totalElements || snap.complete === false;
  if (cut) {
    const more = snap.complete === false ? '+' : '';
    const where = [skipped > 0 ? 'what is above the view is left out' : '', full || elements < totalElements || snap.complete === false ? 'the end of the page is left out' : ''].filter(Boolean).join(' and ');
    notes.push(`[Cut by Gnosis at ${limits.chars} characters: showing ${shownText} of ${totalText}${more} pieces of text and ${elements} of ${totalElements}${more} elements; ${where}. Scroll (browser.scroll) and read again for more.]`);
  }
  return { text: [head, ...lines, ...(notes.length ? ['', ...notes] : [])].join('\n'), elements, cut };
}
