// One model action on the desktop: the host calls it makes (through the
// desktop profile, desktop_profiles.js) and the result line the model reads.
//
// Coordinates: the model points at the screenshot it was sent, 0..999 on
// both axes (or pixels of that image in the 'absolute' mode). The desktop
// server takes pixels of its own screenshot (computer-use-mcp scales them to
// the screen itself; Munim's screenshot is the screen), which the agent may
// have scaled down before sending it, so a point is mapped onto the
// server's screenshot size, never the sent one. Pure module.

import { callsFor } from './desktop_profiles.js';
import { toCss } from '../../shared/core/coords.js';

/** How long Wait waits on the desktop, as on the tab. */
export const DESKTOP_WAIT_MS = 2500;

/** Text in pieces of at most n characters (whole code points), so a Stop lets at most one piece land. */
export function textPieces(text, n) {
  const chars = [...String(text)];
  if (!(n > 0) || chars.length <= n) return [String(text)];
  const out = [];
  for (let i = 0; i < chars.length; i += n) out.push(chars.slice(i, i + n).join(''));
  return out;
}

/** A scroll's amount in pieces of at most n (the last one the rest). */
export function amountPieces(amount, n) {
  if (!(n > 0) || amount <= n) return [amount];
  const out = Array(Math.floor(amount / n)).fill(n);
  if (amount % n) out.push(amount % n);
  return out;
}

/**
 * A model point to pixels of the server's screenshot.
 * @param {[number, number]} point the model's point
 * @param {{width:number, height:number, sentWidth:number, sentHeight:number}} shot the server's
 *   screenshot size and the size of the image the model was sent
 * @param {'normalized'|'absolute'} [mode]
 * @returns {[number, number]} integer pixels inside the server's screenshot
 */
export function toDesktop(point, shot, mode = 'normalized') {
  const p = mode === 'absolute'
    ? toCss([point[0] * (shot.width / shot.sentWidth), point[1] * (shot.height / shot.sentHeight)], shot, 'absolute')
    : toCss(point, shot, 'normalized');
  return [Math.min(Math.round(p.x), shot.width - 1), Math.min(Math.round(p.y), shot.height - 1)];
}

const NAMES = { Click: 'click', RightClick: 'right_click', DoubleClick: 'double_click', Hover: 'move' };
const DONE = { click: 'clicked', right_click: 'right-clicked', double_click: 'double-clicked', move: 'moved the mouse to' };

/**
 * The plan for one action on the desktop.
 * @param {{name:string, args:object}} action parsed action
 * @param {{profile:object, prefix:string, shot:object|null, coordinateMode?:string}} o shot: see toDesktop
 *   (null before the first desktop screenshot)
 * @returns {{calls:Array<{capability:string, arguments:object}>, text:string, waitMs?:number} | {error:string}}
 */
export function planDesktopAction(action, { profile, prefix, shot, coordinateMode = 'normalized' }) {
  const a = action.args || {};
  const at = (p) => toDesktop(p, shot, coordinateMode);
  const needsShot = ['Click', 'RightClick', 'DoubleClick', 'Hover', 'Drag', 'Scroll'].includes(action.name);
  if (needsShot && !shot) return { error: `${action.name} needs a desktop screenshot first` };
  // Each of pieces (one set of values each) makes the verb's calls, in order.
  const plan = (verb, pieces, text) => {
    const calls = pieces.flatMap((values) => callsFor(profile, prefix, verb, values));
    if (!calls.length) return { error: `the desktop profile "${profile.name || profile.id}" maps no ${verb} action, so ${action.name} cannot run on the desktop` };
    return { calls, text };
  };
  const px = (p) => `(${p[0]},${p[1]})`;
  switch (action.name) {
    case 'Click':
    case 'RightClick':
    case 'DoubleClick':
    case 'Hover': {
      const verb = NAMES[action.name];
      const p = at(a.point);
      return plan(verb, [{ point: p }], `${DONE[verb]} the desktop at ${px(p)} of its ${shot.width}x${shot.height} screenshot`);
    }
    case 'Drag': {
      const from = at(a.start);
      const to = at(a.end);
      return plan('drag', [{ from, to }], `dragged on the desktop from ${px(from)} to ${px(to)}`);
    }
    case 'Scroll': {
      const p = at(a.point);
      const pieces = profile.scrollChunk && profile.scrollAmount
        ? amountPieces(profile.scrollAmount, profile.scrollChunk).map((amount) => ({ point: p, direction: a.direction, amount }))
        : [{ point: p, direction: a.direction }];
      return plan('scroll', pieces, `scrolled ${a.direction} on the desktop at ${px(p)}`);
    }
    case 'Type':
      return plan('type', textPieces(a.content, profile.typeChunk).map((text) => ({ text })), `typed ${[...a.content].length} characters on the desktop`);
    case 'Hotkey': {
      const r = plan('key', [{ keys: a.keys }], `pressed ${a.keys.join('+')} on the desktop${a.repeat > 1 ? ` ${a.repeat} times` : ''}`);
      if (r.calls && a.repeat > 1) r.calls = Array.from({ length: a.repeat }, () => r.calls).flat();
      return r;
    }
    case 'PressEnter':
      return plan('key', [{ keys: ['enter'] }], 'pressed Enter on the desktop');
    case 'Wait':
      return { calls: [], text: `waited ${DESKTOP_WAIT_MS / 1000} s`, waitMs: DESKTOP_WAIT_MS };
    case 'TakeNote':
      return { calls: [], text: `noted: ${a.content}` };
    default:
      return { error: `${action.name} works only in the browser tab; on the desktop use Click, RightClick, DoubleClick, Hover, Drag, Scroll, Type, Hotkey, PressEnter or Wait, or SwitchSurface(surface='tab') first` };
  }
}
