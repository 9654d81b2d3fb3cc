// The chat bridge's content script, Pick: the person clicks an element in
// the page (an outline follows the pointer; Escape cancels) and gets the
// selector pick_selector.js makes of it; what the selector matches is then
// outlined for a moment, with its count.

import * as pickSelector from './pick_selector.js';
import { queryAll } from './dom.js';
import { BUTTON, EDITABLE } from '../core/pick_rules.js';
import { controlAt } from '../core/detect.js';
import { attachPick } from './attach_detect.js';

// ---- the overlay ----------------------------------------------------------------

/** A shadow host for Pick's overlay (gnosis-pick) or the outline of its matches (gnosis-matches). */
function overlay(name = 'gnosis-pick') {
  const host = document.createElement(name);
  host.attachShadow({ mode: 'open' });
  document.documentElement.appendChild(host);
  return host;
}

function boxFor(el, color = '#0969da') {
  const r = el.getBoundingClientRect();
  const box = document.createElement('div');
  box.style.cssText = `position:fixed;pointer-events:none;z-index:2147483647;outline:2px solid ${color};background:${color}22;`
    + `left:${r.left}px;top:${r.top}px;width:${r.width}px;height:${r.height}px`;
  return box;
}

function tipBox(text) {
  const tip = document.createElement('div');
  tip.setAttribute('role', 'status');
  tip.textContent = text;
  tip.style.cssText = 'pointer-events:none;position:fixed;top:8px;left:50%;transform:translateX(-50%);z-index:2147483647;padding:6px 10px;background:#1f2328;color:#fff;font:13px system-ui;border-radius:4px';
  return tip;
}

let outlined = null; // the outline of the last pick's matches

/** Outlines every element the selector matches for a few seconds, with their count. */
function highlight(selector, label) {
  const host = overlay('gnosis-matches');
  outlined = host;
  const matches = queryAll(selector);
  host.shadowRoot.append(...matches.slice(0, 200).map((m) => boxFor(m, '#1a7f37')),
    tipBox(`${label}: matches ${matches.length} element${matches.length === 1 ? '' : 's'}`));
  setTimeout(() => host.remove(), 4000);
}

/**
 * The control a click at (x, y) on el means for a button or input field: el
 * itself when it is one or is inside one, else the smallest such control
 * inside el (or its parent) whose box holds the point.
 */
function controlUnder(el, field, x, y) {
  const kind = field === 'destination' ? EDITABLE : field === 'sendButton' || field === 'streaming' ? BUTTON : '';
  if (!kind || el.closest(kind)) return el;
  for (const scope of [el, el.parentElement].filter(Boolean)) {
    const candidates = [...scope.querySelectorAll(kind)];
    const i = controlAt(candidates.map((c) => ({ rect: c.getBoundingClientRect() })), x, y);
    if (i >= 0) return candidates[i];
  }
  return el;
}

const LABELS = { source: 'Extract from', destination: 'Inject into', sendButton: 'Send button', streaming: 'Still replying while', attachTarget: 'Attach images by' };

/** Lets the person click an element; resolves {ok, selector, count} or {ok: false, cancelled}. */
function pick(field) {
  outlined?.remove();
  return new Promise((resolve) => {
    const host = overlay();
    const box = boxFor(document.body);
    box.style.display = 'none';
    host.shadowRoot.append(box, tipBox('Gnosis: click the element to use — Escape cancels'));
    // Pointer events and elementFromPoint, so disabled buttons (which get
    // no mouse events) can be picked too.
    // A control that also ignores the pointer (pointer-events: none, as a
    // disabled button often does) is skipped by the hit test, so the control
    // is looked for inside what was hit.
    const under = (e) => {
      const el = document.elementFromPoint(e.clientX, e.clientY);
      if (!(el instanceof Element) || el === host) return null;
      return controlUnder(el, field, e.clientX, e.clientY);
    };
    const move = (e) => {
      const el = under(e);
      if (!el) return;
      const r = el.getBoundingClientRect();
      Object.assign(box.style, { display: 'block', left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
    };
    const swallow = (e) => {
      e.preventDefault();
      e.stopPropagation();
    };
    const finish = (result) => {
      removeEventListener('pointermove', move, true);
      removeEventListener('pointerdown', down, true);
      removeEventListener('keydown', key, true);
      host.remove();
      // The click that follows the pick must not reach the page.
      setTimeout(() => {
        removeEventListener('click', swallow, true);
        removeEventListener('mousedown', swallow, true);
        removeEventListener('mouseup', swallow, true);
      }, 300);
      if (result.ok && result.selector) highlight(result.selector, LABELS[field] || field);
      resolve(result);
    };
    const down = (e) => {
      swallow(e);
      const el = under(e);
      // For images, what the click means decides how they are attached (attach_detect.js).
      const picked = el && (field === 'attachTarget' ? attachPick(el) : pickSelector.selectorFor(el, field));
      finish(el ? { ok: true, ...picked } : { ok: false, cancelled: true });
    };
    const key = (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        finish({ ok: false, cancelled: true });
      }
    };
    addEventListener('pointermove', move, true);
    addEventListener('pointerdown', down, true);
    addEventListener('click', swallow, true);
    addEventListener('mousedown', swallow, true);
    addEventListener('mouseup', swallow, true);
    addEventListener('keydown', key, true);
  });
}

export { pick };
