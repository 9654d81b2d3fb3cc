// The chat bridge's content script, auto-detection: describes the page for
// the detection rules (bridge/core/detect.js), watches it while the person
// sends a message and the reply streams (what text grew, what control showed
// only meanwhile, what the person clicked to send, or Enter), outlines on the
// page what the rules propose and lets the person confirm it in a small panel
// (detect_panel.js); checks a send button selector with the input empty and
// holding text, for the options page's live check. Resolves the
// confirmed fields with their selectors; what the rules were unsure of stays
// unticked, for Pick.

import { BUTTON, EDITABLE } from '../core/pick_rules.js';
import { propose } from '../core/detect.js';
import { norm, queryAll, visible } from './dom.js';
import { selectorFor } from './pick_selector.js';
import { destinationEditor, withInput } from './inject.js';
import { enterTicked, panelStyle, renderBoxes, renderPanel } from './detect_panel.js';
import { pageState } from './page_state.js';

const MAX_NODES = 6000;
/** A reply that has not grown for this long is done (the bridge's own settle delay, by default). */
const QUIET_MS = 800;
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'head', 'iframe', 'object']);

// ---- what the page did while watched -----------------------------------------

const watch = {
  observer: null, grew: new WeakMap(), typed: new WeakMap(), lengths: new WeakMap(), added: new WeakMap(), sentText: '', sentAt: 0,
  streaming: false, replies: 0, before: new Map(), lastGrowth: 0, shownWhile: new Map(), streamed: [], onReply: () => {}, onSend: () => {},
  /** The elements seen growing in the reply now streaming, with their last text (to find them again if the page remounts them). */
  growing: new Map(),
  /** A send the person started (a click on a control, or Enter) until the input lets go of its text: {el?, key?, text, send?}. */
  pending: null,
  /** The send the page took: {el?, key?, send?} — el: what the person clicked; send: the proposal for it made while it showed. */
  sentWith: null,
};

const nameOf = (el) => norm(el.getAttribute('aria-label') || el.getAttribute('title') || el.getAttribute('placeholder')
  || (el.matches(BUTTON) || el.matches('input') ? el.innerText || el.value || '' : '')).slice(0, 60);

const attrsOf = (el) => Object.fromEntries([...el.attributes].slice(0, 24)
  .filter((a) => a.name !== 'style' && a.name !== 'class').map((a) => [a.name, a.value.slice(0, 120)]));

/** How a control looks: its classes and name. */
const signature = (el) => `${el.className?.baseVal ?? el.className}|${nameOf(el)}`;

/** Controls, and elements a page styles as its send or stop control without making them buttons. */
const CONTROLS = `${BUTTON}, [class*="send" i], [class*="stop" i]`;

/** The chat input: the visible editor that has the focus, else the first visible one. */
function editorNow() {
  const editors = queryAll(EDITABLE).filter((e) => visible(e) && !e.closest('gnosis-detect'));
  return editors.find((e) => e === document.activeElement || e.contains(document.activeElement)) || editors[0] || null;
}

const editorText = (editor) => (editor ? norm(editor.matches('textarea, input') ? editor.value : editor.innerText) : '');

/** The region around the chat input (a few levels up), where a send or stop control sits. */
function composerOf(editor) {
  let a = editor;
  for (let i = 0; i < 5 && a?.parentElement && a.parentElement !== document.body; i++) a = a.parentElement;
  return a;
}

/** Whether the page made el clickable without making it a button: a pointer cursor its parent does not have. */
const pointer = (el) => getComputedStyle(el).cursor === 'pointer' && (!el.parentElement || getComputedStyle(el.parentElement).cursor !== 'pointer');

/** The controls showing now and how they look: buttons anywhere, and clickable elements by the input. */
function controlsNow() {
  const out = new Map(queryAll(CONTROLS).filter(visible).map((b) => [b, signature(b)]));
  const box = composerOf(editorNow());
  if (box) for (const el of box.querySelectorAll('div, span, a, i, svg, li')) if (!out.has(el) && !el.closest(BUTTON) && visible(el) && pointer(el)) out.set(el, signature(el));
  return out;
}

/** What the description of a control that showed only while a reply streamed holds. */
function controlSeen(el) {
  const editor = editorNow();
  const box = composerOf(editor);
  const text = norm(el.textContent);
  return {
    tag: el.localName, attrs: attrsOf(el), classes: [...el.classList], name: nameOf(el), sig: signature(el),
    clickable: el.matches(BUTTON) ? 'button' : 'pointer', near: !!box?.contains(el),
    inReply: [...watch.growing.keys()].some((g) => g.contains(el)), icon: !text && !!el.querySelector('svg, img, i, [class*="icon" i]'),
  };
}

/** Whether el is in what the page added after the person's message went out. */
function addedSinceSend(el) {
  if (!watch.sentAt) return false;
  for (let a = el, i = 0; a && i < 12; a = a.parentElement, i++) if ((watch.added.get(a) ?? 0) >= watch.sentAt) return true;
  return false;
}

/** A send the person started is done once the input lets go of the text: the text went out. */
function confirmSend() {
  const p = watch.pending;
  if (!p) return;
  const editor = editorNow();
  if (editor && editorText(editor).includes(p.text)) return;
  watch.pending = null;
  watch.sentText = p.text;
  watch.sentAt = Date.now();
  watch.sentWith = p;
  watch.onSend();
}

function onMutations(records) {
  const now = Date.now();
  let grewNow = false;
  const typing = editorText(editorNow());
  for (const r of records) {
    for (const n of r.addedNodes) if (n instanceof Element) watch.added.set(n, now);
    const el = r.target instanceof Element ? r.target : r.target.parentElement;
    if (!el || el.closest('gnosis-detect') || el.isContentEditable || el.matches('textarea, input')) continue;
    const len = el.textContent.length;
    if (len > (watch.lengths.get(el) ?? 0)) {
      // A copy of what the person is typing (a measuring element refilled at each keystroke) is not a reply.
      if (typing && norm(el.textContent).includes(typing)) watch.typed.set(el, (watch.typed.get(el) || 0) + 1);
      else {
        // Seen growing twice; or once, in what the page added after the person sent (a page that renders a fast reply in two steps).
        watch.grew.set(el, Math.max((watch.grew.get(el) || 0) + 1, addedSinceSend(el) ? 2 : 0));
        if (watch.grew.get(el) >= 2) {
          grewNow = true;
          watch.growing.set(el, norm(el.textContent));
        }
      }
    }
    watch.lengths.set(el, len);
  }
  confirmSend();
  if (!grewNow && !watch.streaming && watch.shownWhile.size && settleShown()) watch.onReply();
  if (grewNow) {
    watch.lastGrowth = now;
    watch.streaming = true;
    // Controls that show now and did not before the reply started, or changed how they look (a send button turned stop).
    for (const [b, sig] of controlsNow()) {
      if (watch.before.get(b) !== sig && !watch.shownWhile.has(b)) watch.shownWhile.set(b, controlSeen(b));
    }
    for (const [el] of watch.growing) if (el.isConnected) watch.growing.set(el, norm(el.textContent));
    clearTimeout(watch.doneTimer);
    watch.doneTimer = setTimeout(replyDone, QUIET_MS);
  }
}

/**
 * A page may replace the streamed reply's elements when it ends (rendered
 * anew from the finished text): the element that now holds the same text
 * (the deepest) takes over what was seen of the old one.
 */
function followRemounts() {
  const all = [...document.body.querySelectorAll('*')].filter((e) => !e.closest('gnosis-detect') && !e.matches(EDITABLE));
  for (const [el, text] of watch.growing) {
    if (el.isConnected || !text) continue;
    const head = text.slice(0, 40);
    const holds = all.filter((e) => e.isConnected && norm(e.textContent).includes(head));
    const same = holds.filter((e) => norm(e.textContent) === text);
    const pool = same.length ? same : holds;
    const deepest = pool.filter((e) => !pool.some((o) => o !== e && e.contains(o)));
    for (const d of deepest) watch.grew.set(d, Math.max(watch.grew.get(d) || 0, watch.grew.get(el) || 2));
  }
}

/**
 * The controls that showed while a reply streamed count as its sign once
 * they are gone, hidden, or changed again (a send button that turned stop
 * and back); one still showing when the reply seems done (a pause in a slow
 * stream) is watched until it goes. Returns whether one counted now.
 */
function settleShown() {
  let counted = false;
  for (const [el, d] of watch.shownWhile) {
    if (el.isConnected && visible(el) && signature(el) === d.sig) continue;
    watch.streamed.push(d);
    watch.shownWhile.delete(el);
    counted = true;
  }
  return counted;
}

function replyDone() {
  const quiet = Date.now() - watch.lastGrowth;
  if (quiet < QUIET_MS) {
    watch.doneTimer = setTimeout(replyDone, QUIET_MS - quiet);
    return;
  }
  watch.streaming = false;
  followRemounts();
  watch.growing.clear();
  settleShown();
  watch.before = controlsNow();
  watch.replies++;
  watch.onReply();
}

/** The control a click on target means: its button or an element the page names send, else the element the page made clickable around it. */
function controlOf(target) {
  const button = target.closest(`${BUTTON}, [class*="send" i], [class*="submit" i]`);
  if (button) return button;
  for (let el = target; el && el !== document.body; el = el.parentElement) if (pointer(el)) return el;
  return null;
}

/** The person starts a send (Enter in the input, a click on a control) while the input holds text. */
function noteSend(event) {
  if (!event.isTrusted) return;
  if (event.type === 'keydown' && (event.key !== 'Enter' || event.shiftKey || event.isComposing)) return;
  const editor = editorNow();
  const text = editorText(editor);
  if (!text) return;
  if (event.type === 'pointerdown') {
    if (!(event.target instanceof Element) || event.target.closest('gnosis-detect') || editor.contains(event.target)) return;
    const control = controlOf(event.target);
    const el = control && !control.contains(editor) ? control : null;
    // The send button may show only while there is text: what the rules make of it now, before the send empties the input.
    watch.pending = { el, text };
    if (el) watch.pending.send = proposal().sendButton;
  } else if (event.type === 'keydown') {
    if (!editor.contains(event.target) && event.target !== editor) return;
    watch.pending = { key: 'Enter', text };
  }
  if (!watch.streaming) watch.before = controlsNow();
}

function startWatching(onReply, onSend) {
  watch.onReply = onReply;
  watch.onSend = onSend;
  if (watch.observer) return;
  watch.before = controlsNow();
  watch.observer = new MutationObserver(onMutations);
  watch.observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  for (const t of ['keydown', 'pointerdown']) addEventListener(t, noteSend, true);
}

function stopWatching() {
  watch.observer?.disconnect();
  watch.observer = null;
  clearTimeout(watch.doneTimer);
  for (const t of ['keydown', 'pointerdown']) removeEventListener(t, noteSend, true);
}

// ---- the description ---------------------------------------------------------------

/**
 * Whether a person can see el besides its being rendered: not transparent
 * (a measuring copy of the input at opacity 0) and not placed above the
 * page's top or left, where no scrolling reaches.
 */
function seeable(el, r) {
  if (typeof el.checkVisibility === 'function' && !el.checkVisibility({ opacityProperty: true })) return false;
  return r.bottom + scrollY > 0 && r.right + scrollX > 0;
}

/** The page as the rules read it, with the element behind each node. */
function describe() {
  const nodes = [];
  const elements = [];
  const clicked = watch.pending?.el || watch.sentWith?.el;
  const walk = (el, parent, hidden) => {
    if (nodes.length >= MAX_NODES || SKIP.has(el.localName) || el.localName.startsWith('gnosis-')) return;
    const id = nodes.length;
    const isHidden = hidden || el.getAttribute('aria-hidden') === 'true';
    const r = el.getBoundingClientRect();
    const editable = el.matches(EDITABLE) ? (el.matches('textarea, input') ? 'field' : 'rich') : '';
    const text = el.textContent || '';
    nodes.push({
      id, parent, tag: el.localName, attrs: attrsOf(el), classes: [...el.classList].slice(0, 20),
      name: nameOf(el), textLength: text.length, rect: { x: r.x, y: r.y, width: r.width, height: r.height },
      visible: visible(el) && seeable(el, r), disabled: !!el.disabled || el.getAttribute('aria-disabled') === 'true', editable, hidden: isHidden,
      text: text.length <= 200 ? norm(text).slice(0, 80) : '', grew: watch.grew.get(el) || 0, typed: watch.typed.get(el) || 0, added: watch.added.has(el),
      userMessage: !!watch.sentText && !editable && norm(text) === watch.sentText && ![...el.children].some((c) => norm(c.textContent) === watch.sentText),
      clicked: !!clicked && el === clicked,
    });
    elements.push(el);
    if (el.localName === 'svg') return;
    for (const c of el.children) walk(c, id, isHidden);
  };
  walk(document.body, -1, false);
  return {
    desc: {
      nodes, viewport: { width: innerWidth, height: innerHeight }, streamed: watch.streamed.slice(-4),
      sentBy: watch.sentWith?.key ? 'enter' : watch.sentWith?.el ? 'click' : '',
    },
    elements,
  };
}

/** The rules' proposal, each field with its selector and what it matches now. */
function proposal() {
  const { desc, elements } = describe();
  const found = propose(desc);
  const out = {};
  for (const [field, p] of Object.entries(found)) {
    if (!p) {
      out[field] = null;
      continue;
    }
    if (p.node == null && !p.selector && p.enter) {
      out[field] = { selector: '', sure: false, why: p.why, count: 0, el: null, enter: true };
      continue;
    }
    const el = p.node != null ? elements[p.node] : null;
    let selector = p.selector;
    // The rules' selector, when the page agrees it names the element; else Pick's.
    if (el && (!selector || !queryAll(selector).some((m) => m.contains(el)))) selector = selectorFor(el, field).selector;
    const matches = queryAll(selector);
    if (!matches.length && field !== 'streaming') {
      out[field] = null;
      continue;
    }
    out[field] = { selector, sure: p.sure, why: p.why, count: matches.length, el: el || matches[matches.length - 1] || null, seen: p.seen, enter: p.enter };
  }
  return out;
}

// ---- what the person sees ----------------------------------------------------------

let session = null;

function refresh() {
  if (!session) return;
  // What was found stays found while it is on the page (a send button that shows only while there is text is gone after the send).
  const next = proposal();
  // What the person clicked to send, as it was when it showed (a send button shown only while there is text is gone now).
  const sent = watch.sentWith;
  if (sent?.el && !sent.el.isConnected && sent.send?.sure) {
    // The page drew it anew: outline what its selector names now.
    const now = queryAll(sent.send.selector);
    next.sendButton = { ...sent.send, el: now.length === 1 ? now[0] : null, count: now.length };
  }
  for (const [field, p] of Object.entries(session.found)) {
    if (p && (!next[field] || !next[field].sure && p.sure) && (field === 'streaming' || queryAll(p.selector).length || field === 'sendButton')) next[field] = p;
  }
  session.found = next;
  session.watching = !session.found.source || !session.found.streaming;
  renderPanel(session, finish);
  renderBoxes(session);
}

function finish(confirmed) {
  const s = session;
  if (!s) return;
  session = null;
  clearInterval(s.timer);
  stopWatching();
  removeEventListener('keydown', s.onKey, true);
  removeEventListener('resize', s.onMove);
  removeEventListener('scroll', s.onMove, true);
  s.host.remove();
  if (!confirmed) {
    s.resolve({ ok: false, cancelled: true });
    return;
  }
  const fields = {};
  for (const [field, p] of Object.entries(s.found)) {
    if (!p) continue;
    fields[field] = { selector: p.selector, sure: p.sure, used: !!p.selector && (s.ticked[field] ?? p.sure), why: p.why, count: p.count, enter: p.enter };
  }
  if (s.found.sendButton?.enter) fields.sendWithEnter = { used: enterTicked(s), sure: true, why: 'you sent your message with Enter' };
  s.resolve({ ok: true, fields });
}

/**
 * Proposes the fields and shows them; resolves when the person confirms
 * ({ok, fields: {field: {selector, sure, used, why, count}}}) or cancels.
 */
function start() {
  if (session) finish(false);
  return new Promise((resolve) => {
    const host = document.createElement('gnosis-detect');
    host.attachShadow({ mode: 'open' });
    document.documentElement.appendChild(host);
    const onKey = (e) => {
      if (e.key === 'Escape' && e.isTrusted && session) {
        e.preventDefault();
        finish(false);
      }
    };
    addEventListener('keydown', onKey, true);
    const style = document.createElement('style');
    style.textContent = panelStyle();
    const boxes = document.createElement('div');
    const panel = document.createElement('div');
    host.shadowRoot.append(style, boxes, panel);
    session = { host, resolve, onKey, ticked: {}, found: {}, watching: true, timer: 0, boxes, panel };
    startWatching(refresh, refresh);
    refresh();
    // Boxes follow the page as it scrolls and re-renders; a page that removes the panel cancels.
    session.timer = setInterval(() => {
      if (!session) return;
      if (!host.isConnected) finish(false);
      else renderBoxes(session);
    }, 500);
    session.onMove = () => session && renderBoxes(session);
    addEventListener('resize', session.onMove, { passive: true });
    addEventListener('scroll', session.onMove, { passive: true, capture: true });
  });
}

/** What the detection proposes now (while the panel is open: what it shows), without showing it; replies: how many replies it saw end. */
function peek() {
  const found = session?.found || proposal();
  return { ok: true, replies: watch.replies, fields: Object.fromEntries(Object.entries(found).map(([f, p]) => [f, p && { selector: p.selector, sure: p.sure, why: p.why, count: p.count, seen: p.seen, enter: p.enter }])) };
}

const PROBE_TEXT = 'Gnosis checks the send button';
/**
 * Two frames (the page renders what its input now holds), then 50 ms; at
 * most 250 ms, as a hidden page paints no frame and the check holds the
 * chat input meanwhile.
 */
const frames = () => new Promise((r) => {
  const bound = setTimeout(r, 250);
  requestAnimationFrame(() => requestAnimationFrame(() => {
    clearTimeout(bound);
    setTimeout(r, 50);
  }));
});
let probed = null;

/** How long after the person's last key or input the send probe waits (probeSend). */
const TYPING_QUIET_MS = 3000;
let lastTyped = 0;
for (const type of ['keydown', 'beforeinput', 'input']) {
  document.addEventListener(type, (e) => {
    if (e.isTrusted) lastTyped = Date.now();
  }, { capture: true, passive: true });
}

/**
 * The live check of a send button selector with the input empty and holding
 * text ({empty, withText}: how many elements it matches each way). An empty
 * input gets a short text and is emptied again, with the input to itself (a
 * result or a prompt inserted meanwhile waits, and is not emptied); a
 * selector a page matches only in one of the two states (a class set while
 * the input is empty) is found out. The input is written to only while the
 * site is not started and the person has not typed for a while (else: empty
 * only, and checked again next time), so the probe does not meet the
 * person's typing. An input holding the person's text is left alone
 * (withText only), as is one they typed into during the check, and a pair
 * already checked is not checked again.
 */
async function probeSend(css, destination) {
  const editor = destinationEditor(destination);
  if (!editor || !css) return {};
  const count = () => queryAll(css).length;
  const key = `${css}\n${destination}`;
  return withInput(async (write) => {
    if (editorText(editor)) return { withText: count() };
    if (probed?.key === key) return probed.result;
    const empty = count();
    if (pageState.config || Date.now() - lastTyped < TYPING_QUIET_MS) return { empty };
    const wrote = await write(PROBE_TEXT, destination);
    if (!wrote.ok) return { empty };
    await frames();
    const withText = count();
    if (editorText(editor) !== PROBE_TEXT) return { empty, withText };
    await write('', destination);
    await frames();
    probed = { key, result: { empty, withText } };
    return probed.result;
  });
}

/** Closes the panel without using what it found. */
const cancel = () => finish(false);

export { start, peek, cancel, probeSend };
