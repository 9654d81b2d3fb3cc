// The chat bridge's content script, the selectors Pick makes from a click.
// For "Extract from" the click is generalised to the repeating assistant
// message: the message (the "turn") is the nearest element around the click
// with look-alike siblings; among selectors anchored at the turn or inside it,
// the one that matches one element per assistant message, the most stable
// (bridge/core/pick_rules.js), sets them apart from the person's messages when
// it can, and reads only the message's text wins. For a button the button
// itself, never its label or icon; for the chat input its editable root; a
// unique element gets a unique selector.

import * as P from '../core/pick_rules.js';
import { queryAll } from './dom.js';

const TEXT_LEVEL = new Set(['p', 'span', 'code', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'em', 'b', 'i', 'a', 'td', 'tr', 'tbody', 'thead', 'table', 'blockquote']);
const CONTROLS = `${P.BUTTON}, input, textarea, select, [contenteditable="true"]`;

function describe(el) {
  return { tag: el.localName, id: el.id || '', classes: [...el.classList], attrs: Object.fromEntries([...el.attributes].map((a) => [a.name, a.value])) };
}

/** Two single-feature selectors as one compound (a tag goes first); null when both are tags. */
function combine(a, b) {
  const tag = (s) => /^[a-z]/i.test(s);
  if (tag(a) && tag(b)) return null;
  return tag(b) ? b + a : a + b;
}

/** A selector that matches el alone: its stable features, then two of them, then a path from an anchored ancestor. */
function uniqueFor(el) {
  const only = (css) => {
    const m = queryAll(css);
    return m.length === 1 && m[0] === el;
  };
  const own = P.features(describe(el));
  for (const f of own) if (only(f.css)) return f.css;
  for (let i = 0; i < own.length; i++) {
    for (let j = i + 1; j < own.length; j++) {
      const css = combine(own[i].css, own[j].css);
      if (css && only(css)) return css;
    }
  }
  for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
    const anchor = P.features(describe(a)).find((f) => f.rank > 5 && queryAll(f.css).length === 1);
    if (!anchor) continue;
    const inner = own.find((f) => [...a.querySelectorAll(f.css)].length === 1 && a.querySelector(f.css) === el);
    if (inner && only(`${anchor.css} ${inner.css}`)) return `${anchor.css} ${inner.css}`;
    const path = pathFrom(a, el);
    if (only(`${anchor.css} ${path}`)) return `${anchor.css} ${path}`;
  }
  return `body ${pathFrom(document.body, el)}`;
}

/** A child path from ancestor to el: tags, with :nth-of-type only where a tag repeats. */
function pathFrom(ancestor, el) {
  const parts = [];
  for (let n = el; n && n !== ancestor; n = n.parentElement) {
    const same = [...n.parentElement.children].filter((c) => c.localName === n.localName);
    parts.unshift(same.length > 1 ? `${n.localName}:nth-of-type(${same.indexOf(n) + 1})` : n.localName);
  }
  return `> ${parts.join(' > ')}`;
}

/** Siblings of el with its tag that share a stable feature besides the tag: other messages. */
function alike(el) {
  const mine = new Set(P.features(describe(el)).filter((f) => f.rank > 5).map((f) => f.css.replace(/^[a-z][\w-]*/i, '')));
  if (!mine.size || !el.parentElement) return [];
  return [...el.parentElement.children].filter((s) => s !== el && s.localName === el.localName
    && P.features(describe(s)).some((f) => f.rank > 5 && mine.has(f.css.replace(/^[a-z][\w-]*/i, ''))));
}

/**
 * A selector for the assistant's messages from a click on one of them.
 * @returns {{selector: string, count: number}}
 */
function messagesFor(el) {
  let turn = el;
  while (turn && turn !== document.body && (TEXT_LEVEL.has(turn.localName) || !alike(turn).length)) turn = turn.parentElement;
  if (!turn || turn === document.body) return single(el);
  const turns = [turn, ...alike(turn)];
  // The text: the highest element around the click, inside the message, with no controls in it.
  let text = el;
  while (text !== turn && !text.parentElement.querySelector(CONTROLS)) text = text.parentElement;
  const all = turns.map(describe);
  const mine = new Set(P.features(all[0], all).map((f) => f.css));
  const likes = [];
  const unlikes = [];
  turns.slice(1).forEach((t, i) => {
    const theirs = P.features(all[i + 1], all).map((f) => f.css);
    (theirs.length === mine.size && theirs.every((c) => mine.has(c)) ? likes : unlikes).push(all[i + 1]);
  });
  const anchors = [];
  for (let a = text, depth = 0; a; a = a === turn ? null : a.parentElement, depth++) {
    const found = a === turn ? P.apart(all[0], likes, unlikes) : P.features(describe(a));
    for (const f of found) anchors.push({ ...f, at: a, depth });
  }
  let best = null;
  for (const anchor of anchors) {
    const selector = anchor.at === text ? anchor.css : `${anchor.css} ${innerOf(anchor.at, text)}`;
    const matches = queryAll(selector);
    if (!matches.includes(text)) continue;
    const owners = matches.map((m) => turns.find((t) => t.contains(m)));
    if (owners.some((o) => !o) || new Set(owners).size !== owners.length) continue;
    const score = P.score({ rank: anchor.rank, turns: owners.length, total: turns.length, depth: anchor.depth });
    if (!best || score > best.score) best = { selector, count: matches.length, score };
  }
  return best ? { selector: best.selector, count: best.count } : single(text);
}

/** Inside anchor, what selects the text element: one of its features unique there, else a child path. */
function innerOf(anchor, el) {
  const f = P.features(describe(el)).find((x) => x.rank > 5 && [...anchor.querySelectorAll(x.css)].length === 1 && anchor.querySelector(x.css) === el);
  return f ? f.css : pathFrom(anchor, el);
}

/** No look-alike messages on the page: the best feature of the element (the options page flags one match). */
function single(el) {
  const f = P.features(describe(el)).find((x) => queryAll(x.css).includes(el) && x.rank > 5);
  const selector = f ? f.css : uniqueFor(el);
  return { selector, count: queryAll(selector).length };
}

/** What a click on el means for a field: {selector, count}. */
function selectorFor(el, field) {
  if (field === 'source') return messagesFor(el);
  let target;
  if (field === 'destination') {
    const roots = [];
    for (let n = el; n; n = n.parentElement) if (n.matches(P.EDITABLE)) roots.push(n);
    target = roots.pop() || el;
  } else {
    target = el.closest(P.BUTTON) || el;
  }
  const selector = uniqueFor(target);
  return { selector, count: queryAll(selector).length };
}

export { selectorFor };
