// The pure parts of the tab engine's actions (shared/tab_executor.js runs them
// through CDP): the viewport a screenshot covers, the stop error, the
// pieces of a long Type, a Drag's path, a Scroll's wheel event and what it
// did, and an action's result once the URL is known. Pure: no chrome.*, no DOM.

import { abortableSleep } from './abortable_sleep.js';

/** Characters inserted per Input.insertText call, so a long Type can stop between pieces. */
export const TYPE_PIECE = 200;

/** Moves of a Drag from its start to its end. */
export const DRAG_STEPS = 10;

/** The error an action throws when its signal aborts it (code 'stopped', like a stopped request). */
export function actionStopped() {
  const err = new Error('the action was stopped');
  err.code = 'stopped';
  return err;
}

/** A sleep that ends early, rejecting with actionStopped(), when signal aborts; timers: the clock (default the real one). */
export function actionSleep(ms, signal, timers) {
  return abortableSleep(ms, signal, actionStopped, timers);
}

/**
 * Reads the CSS viewport the screenshot covers from Page.getLayoutMetrics.
 * cssVisualViewport is what the user sees (and what captureScreenshot captures).
 */
export function viewportFromMetrics(m) {
  const v = m.cssVisualViewport || m.cssLayoutViewport || m.layoutViewport;
  return { width: Math.round(v.clientWidth), height: Math.round(v.clientHeight), pageX: v.pageX || 0, pageY: v.pageY || 0 };
}

/** The params of an Input.dispatchMouseEvent of type at p (left button; extra overrides). */
export function mouseEvent(type, p, extra = {}) {
  return { type, x: p.x, y: p.y, button: type === 'mouseMoved' ? 'none' : 'left', buttons: extra.buttons ?? (type === 'mousePressed' ? 1 : 0), clickCount: extra.clickCount ?? 0, ...extra };
}

/** A CSS point as the result texts show it. */
export const formatPoint = (p) => `(${Math.round(p.x)},${Math.round(p.y)})`;

/** The text of a Type in pieces of TYPE_PIECE characters (whole code points). */
export function typePieces(content) {
  const chars = [...content];
  const out = [];
  for (let i = 0; i < chars.length; i += TYPE_PIECE) out.push(chars.slice(i, i + TYPE_PIECE).join(''));
  return out;
}

/** The DRAG_STEPS points a Drag moves through after pressing at start, the last at end. */
export function dragPath(start, end, steps = DRAG_STEPS) {
  const out = [];
  for (let i = 1; i <= steps; i++) out.push({ x: start.x + ((end.x - start.x) * i) / steps, y: start.y + ((end.y - start.y) * i) / steps });
  return out;
}

/** The mouseWheel event of a Scroll at p: two thirds of the viewport in direction. */
export function wheelEvent(p, direction, viewport) {
  const dx = direction === 'left' ? -1 : direction === 'right' ? 1 : 0;
  const dy = direction === 'up' ? -1 : direction === 'down' ? 1 : 0;
  return { type: 'mouseWheel', x: p.x, y: p.y, deltaX: Math.round(dx * viewport.width * 2 / 3), deltaY: Math.round(dy * viewport.height * 2 / 3) };
}

/** What a Scroll did, from the page's scroll position before and after. */
export function scrollOutcome(before, after) {
  return before.x !== after.x || before.y !== after.y
    ? `page scroll moved from (${before.x},${before.y}) to (${after.x},${after.y})`
    : 'the page itself did not scroll (an inner area may have, or the end was reached)';
}

/** An action's result with the URL it left: the text says so when the URL changed. */
export function withUrl(result, urlBefore, urlAfter) {
  if (urlAfter && urlAfter !== urlBefore) return { ...result, text: `${result.text}; the URL changed to ${urlAfter}`, url: urlAfter };
  return { ...result, url: urlAfter };
}
