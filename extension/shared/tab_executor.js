// The tab engine's action table: performing one action on an attached tab
// through CDP, for the side-panel agent and the chat bridge's browser.*
// capabilities alike (tab_driver.js runs it).
//
// Runs in the service worker. Every CDP call goes through env.send, so this
// module holds the "how" of each action and nothing about chrome.debugger
// bookkeeping (tab_driver.js); what needs no browser (the events'
// params, the result texts) is core/cdp_input.js. A point is the model's
// [x, y] (read by env.coordinateMode against env.viewport: core/coords.js)
// or a CSS point {x, y} already found in the page (an element's centre). Each action returns a short
// result text — what was hit, what changed, the URL when it changed — that
// the loop sends with the next request. Action-level failures (no <select> there, unknown key) are
// results with error:true, fed back to the model; broken infrastructure throws.
//
// Every action is interruptible: env.signal (an AbortSignal) aborts env.sleep
// at once, and the actions check it between their CDP calls, so a Stop ends a
// LongPress, Wait, Scroll, Drag, Hotkey repeat or long Type within
// milliseconds; a pressed mouse button is released on the way out.
//
// The file transfers (transfer_worker.js) register Upload/Download with registerAction.

import { toCss } from './core/coords.js';
import { chordEvents } from './core/hotkey.js';
import { actionSleep, actionStopped, dragPath, formatPoint as fmt, mouseEvent, scrollOutcome, typePieces, wheelEvent, withUrl } from './core/cdp_input.js';

const extraActions = new Map();

function checkSignal(env) {
  if (env.signal?.aborted) throw actionStopped();
}

/**
 * Adds or replaces an action implementation (Upload and Download come from transfer_worker.js).
 * @param {string} name action name from the parser's table
 * @param {(args:object, env:object) => Promise<{text:string, error?:boolean}>} fn
 */
export function registerAction(name, fn) {
  extraActions.set(name, fn);
}

// describeAt, describeFocus, scrollState, selectAt and the functions handed
// to evalIn run in the page (Runtime.evaluate): their document and window are the page's.

// Runs in the page: a short description of the element at a CSS point.
function describeAt(x, y) {
  const el = document.elementFromPoint(x, y);
  if (!el) return 'nothing';
  const target = el.closest('a,button,input,select,textarea,label,[role],[onclick]') || el;
  let d = target.tagName.toLowerCase();
  if (target.id) d += '#' + target.id;
  const type = target.getAttribute('type');
  if (type) d += `[type=${type}]`;
  const label = (target.getAttribute('aria-label') || target.innerText || target.value || target.getAttribute('placeholder') || target.getAttribute('title') || '').trim().replace(/\s+/g, ' ');
  if (label) d += ` "${label.slice(0, 60)}"`;
  if (target.tagName === 'A' && target.href) d += ` -> ${target.href.slice(0, 120)}`;
  return d;
}

function describeFocus() {
  const el = document.activeElement;
  if (!el || el === document.body) return 'the page (no field focused)';
  let d = el.tagName.toLowerCase();
  if (el.id) d += '#' + el.id;
  if (el.getAttribute('name')) d += `[name=${el.getAttribute('name')}]`;
  return d;
}

function scrollState() {
  return { x: Math.round(window.scrollX), y: Math.round(window.scrollY) };
}

// Runs in the page: chooses an option of the <select> at a point (or the focused one).
function selectAt(x, y, choice) {
  let el = x === null ? document.activeElement : document.elementFromPoint(x, y);
  if (el && el.tagName === 'LABEL' && el.control) el = el.control;
  const select = el && (el.tagName === 'SELECT' ? el : el.closest && el.closest('select'));
  if (!select) return { error: true, text: `no <select> ${x === null ? 'is focused' : 'at that point'}${el ? ` (found ${el.tagName.toLowerCase()})` : ''}` };
  const opts = Array.from(select.options);
  let idx;
  if (choice.index !== undefined) idx = choice.index < opts.length ? choice.index : -1;
  else if (choice.value !== undefined) idx = opts.findIndex((o) => o.value === choice.value);
  else {
    const norm = (s) => s.trim().replace(/\s+/g, ' ').toLowerCase();
    const want = norm(choice.text);
    idx = opts.findIndex((o) => o.text.trim() === choice.text.trim());
    if (idx < 0) idx = opts.findIndex((o) => norm(o.text) === want);
    if (idx < 0) idx = opts.findIndex((o) => norm(o.text).includes(want));
  }
  const name = 'select' + (select.id ? '#' + select.id : select.name ? `[name=${select.name}]` : '');
  if (idx < 0 || opts[idx].disabled) {
    return { error: true, text: `${name} has no enabled option matching ${JSON.stringify(choice)}; options: ${opts.slice(0, 20).map((o, i) => `${i}:"${o.text.trim()}"`).join(', ')}` };
  }
  select.focus();
  select.selectedIndex = idx;
  select.dispatchEvent(new Event('input', { bubbles: true }));
  select.dispatchEvent(new Event('change', { bubbles: true }));
  return { text: `selected "${opts[idx].text.trim()}" (value ${JSON.stringify(opts[idx].value)}, index ${idx}) in ${name}` };
}

/** Runs a page function with JSON arguments through Runtime.evaluate and returns its value. */
export async function evalIn(env, fn, ...args) {
  const expression = `(${fn.toString()})(${args.map((a) => JSON.stringify(a)).join(',')})`;
  const r = await env.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
  if (r.exceptionDetails) throw new Error(`page script failed: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
  return r.result.value;
}

async function mouse(env, type, p, extra = {}) {
  await env.send('Input.dispatchMouseEvent', mouseEvent(type, p, extra));
}

async function click(env, p, count) {
  await mouse(env, 'mouseMoved', p);
  for (let i = 1; i <= count; i++) {
    await mouse(env, 'mousePressed', p, { clickCount: i, buttons: 1 });
    await mouse(env, 'mouseReleased', p, { clickCount: i, buttons: 0 });
  }
}

async function keys(env, names, repeat = 1) {
  const chord = chordEvents(names, env.platform);
  if (chord.error) return chord;
  for (let i = 0; i < repeat; i++) {
    checkSignal(env);
    for (const ev of chord.events) await env.send('Input.dispatchKeyEvent', ev);
  }
  return {};
}

const ACTIONS = {
  async Click(a, env) {
    const p = env.point(a.point);
    const hit = await evalIn(env, describeAt, p.x, p.y);
    await click(env, p, 1);
    return { text: `clicked ${hit} at CSS ${fmt(p)}` };
  },
  async DoubleClick(a, env) {
    const p = env.point(a.point);
    const hit = await evalIn(env, describeAt, p.x, p.y);
    await click(env, p, 2);
    return { text: `double-clicked ${hit} at CSS ${fmt(p)}` };
  },
  async RightClick(a, env) {
    const p = env.point(a.point);
    const hit = await evalIn(env, describeAt, p.x, p.y);
    await mouse(env, 'mouseMoved', p);
    await mouse(env, 'mousePressed', p, { button: 'right', buttons: 2, clickCount: 1 });
    await mouse(env, 'mouseReleased', p, { button: 'right', buttons: 0, clickCount: 1 });
    return { text: `right-clicked ${hit} at CSS ${fmt(p)}` };
  },
  async Hover(a, env) {
    const p = env.point(a.point);
    await mouse(env, 'mouseMoved', p);
    return { text: `mouse over ${await evalIn(env, describeAt, p.x, p.y)} at CSS ${fmt(p)}` };
  },
  async LongPress(a, env) {
    const p = env.point(a.point);
    const hit = await evalIn(env, describeAt, p.x, p.y);
    const ms = Math.round((a.duration ?? 1) * 1000);
    await mouse(env, 'mouseMoved', p);
    await mouse(env, 'mousePressed', p, { clickCount: 1, buttons: 1 });
    try {
      await env.sleep(ms);
    } finally {
      // Released also when stopped, so the page never keeps a pressed button.
      await mouse(env, 'mouseReleased', p, { clickCount: 1 }).catch(() => {});
    }
    return { text: `pressed ${hit} for ${ms} ms at CSS ${fmt(p)}` };
  },
  async Drag(a, env) {
    const s = env.point(a.start);
    const e = env.point(a.end);
    const hit = await evalIn(env, describeAt, s.x, s.y);
    await mouse(env, 'mouseMoved', s);
    await mouse(env, 'mousePressed', s, { clickCount: 1, buttons: 1 });
    let at = s;
    try {
      for (const next of dragPath(s, e)) {
        at = next;
        await mouse(env, 'mouseMoved', at, { buttons: 1, button: 'left' });
        await env.sleep(16);
      }
    } finally {
      await mouse(env, 'mouseReleased', at, { clickCount: 1 }).catch(() => {});
    }
    return { text: `dragged ${hit} from CSS ${fmt(s)} to ${fmt(e)}` };
  },
  async Scroll(a, env) {
    const p = env.point(a.point);
    const before = await evalIn(env, scrollState);
    await mouse(env, 'mouseMoved', p);
    checkSignal(env);
    await env.send('Input.dispatchMouseEvent', wheelEvent(p, a.direction, env.viewport));
    await env.sleep(400);
    const after = await evalIn(env, scrollState);
    return { text: `scrolled ${a.direction} at CSS ${fmt(p)}; ${scrollOutcome(before, after)}` };
  },
  async Type(a, env) {
    const focus = await evalIn(env, describeFocus);
    for (const text of typePieces(a.content)) {
      checkSignal(env);
      await env.send('Input.insertText', { text });
    }
    return { text: `typed ${a.content.length} characters into ${focus}` };
  },
  async Hotkey(a, env) {
    const r = await keys(env, a.keys, a.repeat ?? 1);
    if (r.error) return { text: r.error, error: true };
    return { text: `pressed ${a.keys.join('+')}${a.repeat > 1 ? ` ${a.repeat} times` : ''} in ${await evalIn(env, describeFocus)}` };
  },
  async PressEnter(a, env) {
    const focus = await evalIn(env, describeFocus);
    await keys(env, ['enter']);
    return { text: `pressed Enter in ${focus}` };
  },
  async PressBack(a, env) {
    const h = await env.send('Page.getNavigationHistory');
    if (h.currentIndex <= 0) return { text: 'there is no previous page in this tab', error: true };
    await env.send('Page.navigateToHistoryEntry', { entryId: h.entries[h.currentIndex - 1].id });
    return { text: 'went back' };
  },
  async PressHome(a, env) {
    await evalIn(env, () => { window.scrollTo(0, 0); });
    return { text: 'scrolled to the top of the page' };
  },
  async Launch(a, env) {
    await env.openTab(a.url);
    return { text: `opened ${a.url} in a new tab; now working there` };
  },
  async Wait(a, env) {
    await env.sleep(2500);
    return { text: 'waited 2.5 s' };
  },
  async SelectOption(a, env) {
    const p = a.point ? env.point(a.point) : null;
    const choice = {};
    for (const k of ['index', 'value', 'text']) if (a[k] !== undefined) choice[k] = a[k];
    return evalIn(env, selectAt, p ? p.x : null, p ? p.y : null, choice);
  },
  async GetUrl(a, env) {
    return { text: `the current URL is ${await env.currentUrl()}` };
  },
  async TakeNote(a) {
    return { text: `noted: ${a.content}` };
  },
  async Upload() {
    return { text: 'Upload is not available: no workspace folder is set up', error: true };
  },
  async Download() {
    return { text: 'Download is not available: no workspace folder is set up', error: true };
  },
};

/** A point of an action in CSS pixels of the viewport: a model point through core/coords.js, a CSS point kept inside it. */
function pointIn(pt, env) {
  if (Array.isArray(pt)) return toCss(pt, env.viewport, env.coordinateMode);
  return toCss([pt.x, pt.y], env.viewport, 'absolute');
}

/**
 * Runs one action.
 * @param {{name:string, args:object}} action parsed action (not Finished/CallUser)
 * @param {object} env {send(method, params), platform, viewport, coordinateMode,
 *   openTab(url), currentUrl(), settle(), signal?: AbortSignal, timers?: the
 *   clock's {setTimeout, clearTimeout} (tests)}; env.sleep is replaced by an
 *   abortable sleep on env.signal
 * @returns {Promise<{text:string, error?:boolean, url?:string}>} rejects with
 *   actionStopped() (code 'stopped') when env.signal aborts it
 */
export async function execute(action, env) {
  const fn = extraActions.get(action.name) || ACTIONS[action.name];
  if (!fn) return { text: `${action.name} cannot be executed in the browser`, error: true };
  const full = { ...env, sleep: (ms) => actionSleep(ms, env.signal, env.timers), point: (pt) => pointIn(pt, env) };
  checkSignal(full);
  const urlBefore = await env.currentUrl();
  const r = await fn(action.args, full);
  checkSignal(full);
  await env.settle?.();
  return withUrl(r, urlBefore, await env.currentUrl());
}
