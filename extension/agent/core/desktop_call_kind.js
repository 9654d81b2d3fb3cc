// The kind of one desktop call (shared/core/desktop_kinds.js: look, point,
// type), read from the call itself: its tool and its exact arguments are
// matched against every call template of the desktop profile, and the call
// is of the kind of each verb whose template it fits: a fixed value must be
// equal, a "$…" value must be of its type (a point, a number, a text…), and
// no argument may be there that the template lacks. A call that fits
// several verbs is of the strongest of their kinds; one that fits none has
// no kind (null) and is always asked about. So computer-use-mcp's one tool
// is looking for {action: "get_screenshot"} and typing for {action: "type",
// text: …}, and nothing a model writes can make a typed command pass for a
// screenshot. Pure.

import { DESKTOP_VERBS } from './desktop_profiles.js';
import { strongestKind } from '../../shared/core/desktop_kinds.js';

/** The kind of each desktop verb. */
export const KIND_OF_VERB = Object.freeze({
  screenshot: 'look',
  click: 'point', right_click: 'point', double_click: 'point', move: 'point', drag: 'point', scroll: 'point',
  type: 'type', key: 'type',
});

const DIRECTIONS = new Set(['up', 'down', 'left', 'right']);
const num = (v) => typeof v === 'number' && Number.isFinite(v);
const pair = (v) => Array.isArray(v) && v.length === 2 && v.every(num);
const xy = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 2 && num(v.x) && num(v.y);

/** What a "$…" placeholder may be filled with (desktop_profiles.js fill). */
const PLACEHOLDERS = {
  $x: num, $y: num, $amount: num,
  $point: pair, $fromPoint: pair, $toPoint: pair,
  $at: xy, $from: xy, $to: xy,
  $text: (v) => typeof v === 'string',
  $keys: (v) => typeof v === 'string' || (Array.isArray(v) && v.every((k) => typeof k === 'string')),
  $direction: (v) => DIRECTIONS.has(v),
  $scroll: (v) => typeof v === 'string' && /^(up|down|left|right):\d+$/.test(v),
};

/** Whether a value fits a template (a call's args, or a part of them). */
export function fitsTemplate(value, template) {
  if (typeof template === 'string' && Object.hasOwn(PLACEHOLDERS, template)) return PLACEHOLDERS[template](value);
  if (Array.isArray(template)) {
    return Array.isArray(value) && value.length === template.length && template.every((t, i) => fitsTemplate(value[i], t));
  }
  if (template !== null && typeof template === 'object') {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
    // A "$…" value the fill left out (undefined) may be missing; nothing else may be added or left out.
    for (const k of Object.keys(value)) if (!Object.hasOwn(template, k)) return false;
    return Object.entries(template).every(([k, t]) => (Object.hasOwn(value, k) ? fitsTemplate(value[k], t) : typeof t === 'string' && t.startsWith('$')));
  }
  return value === template;
}

/**
 * The kind of a call of the desktop server under a profile, or null when no
 * verb of the profile makes such a call.
 * @param {object} profile the desktop profile in use
 * @param {string} prefix its server's prefix
 * @param {{capability:string, arguments?:object}} call
 * @returns {'look'|'point'|'type'|null}
 */
export function kindOfCall(profile, prefix, call) {
  const kinds = [];
  for (const verb of DESKTOP_VERBS) {
    for (const c of profile?.actions?.[verb] || []) {
      if (`${prefix}.${c.tool}` === call?.capability && fitsTemplate(call.arguments ?? {}, c.args || {})) kinds.push(KIND_OF_VERB[verb]);
    }
  }
  return strongestKind(kinds);
}

/**
 * The kinds each of a profile's tools serves, by capability:
 * {"desktop.computer": ["look", "point", "type"]}.
 */
export function toolKinds(profile, prefix) {
  const out = {};
  for (const verb of DESKTOP_VERBS) {
    for (const c of profile?.actions?.[verb] || []) {
      const name = `${prefix}.${c.tool}`;
      out[name] ||= [];
      if (!out[name].includes(KIND_OF_VERB[verb])) out[name].push(KIND_OF_VERB[verb]);
    }
  }
  return out;
}
