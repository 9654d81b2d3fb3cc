// The rules Pick uses to turn a clicked element into a selector that keeps
// working: which of an element's attributes and classes are stable (roles,
// data-* attributes whose values repeat, class stems of hashed CSS-module
// names such as `chat-message__x8Fq2` → [class*="chat-message__"], plain
// classes), never ids or values a page generates per message, and how
// candidate selectors for the assistant's messages are ranked. Pure: the
// content script (bridge/page/pick.js) describes elements as
// {tag, id, classes, attrs} and counts matches on the page; tested with
// node --test.
//
// Imported by the content script (bridge/page/) and by node --test.

/** What a person clicks when they mean a button: the button, not its label or icon. */
const BUTTON = 'button, [role="button"], input[type="submit"], input[type="button"]';
/** What the bridge can write into. */
const EDITABLE = 'textarea, input:not([type]), input[type=text], input[type=search], [contenteditable=""], [contenteditable="true"], [contenteditable="plaintext-only"]';
/** Attributes worth a selector besides data-*, best first. */
const NAMED_ATTRS = ['role', 'aria-label', 'name', 'type', 'placeholder'];
/** Words that say an element is the assistant's (a candidate carrying one ranks higher). */
const ASSISTANT_WORDS = /assistant|answer|response|reply|model|\bbot\b|\bai\b|markdown|prose/i;

/** Words that name a state an element is in now, not what it is. */
const STATE_WORDS = 'disabled|enabled|active|inactive|loading|loaded|busy|pending|streaming|generating|running|selected|focus|focused|focus-visible|hover|hovered|open|opened|closed|collapsed|expanded|checked|pressed|hidden|visible|shown|show|empty|invalid|valid|error|success|done|complete|completed|typing|current|highlighted|animating|entering|leaving|on|off';
/** A class that says a state (`n-button--disabled`, `is-loading`, `active`, `Mui-disabled`): it comes and goes, so it never names an element. */
const STATE_CLASS = new RegExp(`^(?:(?:is|has)[-_])?(?:${STATE_WORDS})$|[-_](?:${STATE_WORDS})$`, 'i');
/** An attribute value that says a state (a reply's status while it streams, a menu's data-state): the attribute's presence is kept instead. */
const STATE_VALUE = /^(true|false|complete|completed|running|pending|streaming|done|loading|idle|active|inactive|open|closed|on|off|checked|unchecked|disabled|enabled|visible|hidden|expanded|collapsed|\d+)$/i;

/** Whether a class names a state the element is in now. */
function isStateClass(cls) {
  return STATE_CLASS.test(cls);
}

/** A value a page generates (ids, counters, hashes): never part of a selector. */
function isGenerated(value) {
  const v = String(value);
  return v.length > 60 || /\d{3,}/.test(v) || /[0-9a-f]{8}-[0-9a-f]{4}/i.test(v) || /^[A-Za-z0-9_-]{16,}$/.test(v) && /\d/.test(v) && /[A-Za-z]/.test(v);
}

/** A CSS identifier as is, or null when it would need escaping. */
function ident(s) {
  return /^-?[A-Za-z_][A-Za-z0-9_-]*$/.test(s) ? s : null;
}

/** A CSS string literal. */
function quote(value) {
  return `"${String(value).replace(/["\\]/g, '\\$&').replace(/\n/g, '\\a ')}"`;
}

/**
 * What a class contributes: a hashed CSS-module name (`file_local__hash`,
 * `local__hash`) its stem, a generated one (css-1x2y3z, digits) nothing, a
 * plain one itself.
 * @returns {{css: string, kind: 'stem'|'class'} | null}
 */
function classFeature(cls) {
  const m = /^([A-Za-z][\w-]*?__)([A-Za-z0-9_-]{4,12})$/.exec(cls);
  if (m && /[0-9]|[A-Z].*[a-z]|[a-z].*[A-Z]/.test(m[2])) return { css: `[class*=${quote(m[1])}]`, kind: 'stem' };
  if (!ident(cls) || isStateClass(cls) || /^css-|^sc-|^jsx-|^svelte-|^_/.test(cls) || /\d{3,}/.test(cls) || /[0-9].*[0-9].*[0-9]/.test(cls) && cls.length < 12) return null;
  return { css: `.${cls}`, kind: 'class' };
}

const RANK = { role: 60, data: 55, id: 50, stem: 45, aria: 40, class: 35, attr: 30, custom: 25, tag: 5 };

/**
 * The stable features of an element, each a selector alone, best first.
 * A data-* value is kept only when another element among peers carries
 * the same value (a value unique to each message is a counter or an id:
 * the attribute's presence is kept instead), and never when it says a state
 * (`data-state="open"`, `data-streaming="false"`); state classes are left out.
 * @param {{tag: string, id?: string, classes?: string[], attrs?: Object<string, string>}} el
 * @param {Array<{attrs?: Object<string, string>}>} [peers] elements like it (other messages)
 * @returns {Array<{css: string, rank: number}>}
 */
function features(el, peers = []) {
  const out = [];
  const add = (css, rank, text = '') => {
    if (!out.some((f) => f.css === css)) out.push({ css, rank: rank + (ASSISTANT_WORDS.test(text) ? 15 : 0) });
  };
  const attrs = el.attrs || {};
  for (const [name, value] of Object.entries(attrs)) {
    if (!name.startsWith('data-') || !ident(name)) continue;
    const repeats = !peers.length || peers.some((p) => p !== el && p.attrs?.[name] === value);
    if (value !== '' && !isGenerated(value) && !STATE_VALUE.test(value) && repeats) add(`[${name}=${quote(value)}]`, RANK.data, `${name} ${value}`);
    else add(`[${name}]`, RANK.data - 10, name);
  }
  for (const name of NAMED_ATTRS) {
    const value = attrs[name];
    if (!value || isGenerated(value)) continue;
    add(`${name === 'type' || name === 'name' || name === 'placeholder' ? el.tag : ''}[${name}=${quote(value)}]`,
      name === 'role' ? RANK.role : name === 'aria-label' ? RANK.aria : RANK.attr, value);
  }
  if (el.id && ident(el.id) && !isGenerated(el.id)) add(`#${el.id}`, RANK.id, el.id);
  for (const cls of el.classes || []) {
    const f = classFeature(cls);
    if (f) add(f.css, RANK[f.kind], cls);
  }
  if (el.tag.includes('-')) add(el.tag, RANK.custom, el.tag);
  add(el.tag, RANK.tag);
  return out.sort((a, b) => b.rank - a.rank);
}

/**
 * Selectors for a message that set it apart from unlike messages (the
 * person's turns) among its siblings: a feature it has and none of them
 * has, else a feature all like messages share with `:not()` of one every
 * unlike message has and it lacks.
 * @returns {Array<{css: string, rank: number}>}
 */
function apart(el, likes, unlikes) {
  const all = [el, ...likes, ...unlikes];
  const own = features(el, all);
  const sets = (list) => list.map((x) => new Set(features(x, all).map((f) => f.css)));
  const likeSets = sets(likes);
  const unlikeSets = sets(unlikes);
  const common = own.filter((f) => likeSets.every((s) => s.has(f.css)));
  if (!unlikes.length) return common;
  const out = common.filter((f) => unlikeSets.every((s) => !s.has(f.css))).map((f) => ({ ...f, rank: f.rank + 20 }));
  const ownCss = new Set(own.map((f) => f.css));
  const theirs = features(unlikes[0], all).filter((f) => !ownCss.has(f.css) && unlikeSets.every((s) => s.has(f.css)) && f.rank > RANK.tag);
  for (const base of common.filter((f) => f.rank > RANK.tag)) {
    for (const not of theirs) out.push({ css: `${base.css}:not(${not.css})`, rank: base.rank + 15 });
  }
  return out.sort((a, b) => b.rank - a.rank);
}

/**
 * Ranks a candidate selector for the assistant's messages.
 * @param {{rank: number, turns: number, total: number, depth: number}} c turns: messages it matches, total:
 *   messages on the page, depth: how far above the clicked text it is anchored
 */
function score({ rank, turns, total, depth }) {
  if (turns < 1) return -Infinity;
  return rank + (turns >= 2 ? 40 : 0) + (turns < total ? 30 : 0) - depth * 2;
}

export { BUTTON, EDITABLE, isGenerated, isStateClass, ident, quote, classFeature, features, apart, score };
