// Auto-detection of a chat page's elements, for "Arm this site" on a page no
// preset fits: from a small description of the page (its elements with tag,
// attributes, accessible name, box, and what the page was seen doing while a
// reply streamed) it proposes the chat input, the send button, the assistant's
// messages and the sign that a reply is still streaming, each with how sure it
// is and why. Pure: bridge/page/detect_page.js describes the page and builds the
// selectors of the elements chosen here; tested with node --test.
//
// Imported by the content script (bridge/page/) and by node --test.

import * as P from './pick_rules.js';

/**
 * @typedef {object} DNode an element of the page
 * @property {number} id
 * @property {number} parent the parent's id, -1 at the top
 * @property {string} tag
 * @property {Object<string, string>} attrs
 * @property {string[]} classes
 * @property {string} name its accessible name (aria-label, title, placeholder, or its text), short
 * @property {number} textLength how much text it holds
 * @property {{x: number, y: number, width: number, height: number}} rect
 * @property {boolean} visible
 * @property {boolean} [disabled]
 * @property {'field'|'rich'|''} [editable] a text field, a rich editor's root
 * @property {boolean} [hidden] aria-hidden here or above
 * @property {number} [grew] how many times its own text grew while the page was watched
 * @property {boolean} [added] added to the page while it was watched
 * @property {boolean} [userMessage] holds the text the person sent while the page was watched
 *
 * @typedef {object} PageDescription
 * @property {DNode[]} nodes in document order
 * @property {{width: number, height: number}} viewport
 * @property {Array<{tag: string, attrs: Object<string, string>, classes: string[], name: string}>} [streamed]
 *   controls that showed only while a reply streamed (gone or hidden now)
 */

const INPUT_WORDS = /message|ask|prompt|chat|type|write|send|reply|question|talk|anything/i;
const SEARCH_WORDS = /search|filter|find/i;
const SEND_WORDS = /\bsend|submit|\bask\b|arrow-?up|\bgo\b/i;
/** In a class or test id, where words run together (ChatMessageSendButton, send-button-container). */
const SEND_IN_NAME = /send|submit/i;
const NOT_SEND_WORDS = /stop|cancel|voice|speech|mic|dictat|attach|upload|file|image|photo|tool|model|emoji|menu|more|setting|plus|\badd\b|new chat|copy|refresh|retry|regenerat|edit|share|like|scroll|search|close|theme|login|sign/i;
const STOP_WORDS = /\bstop|cancel|abort|interrupt/i;
const STREAM_ATTR = /stream|generat|busy|pending|loading|typing|progress/i;
const USER_WORDS = /\buser\b|user-|-user|human|\bme\b|self|query|request|mine|outgoing|sent\b/i;
const ASSISTANT_WORDS = /assistant|\bbot\b|-bot|bot-|model|\bai\b|ai-|response|answer|reply|agent|incoming|markdown|prose/i;

/** Below this a choice is left to Pick. */
const SURE = { destination: 60, sendButton: 60, source: 60, streaming: 60 };

// ---- the tree ---------------------------------------------------------------

function tree(desc) {
  const byId = new Map(desc.nodes.map((n) => [n.id, n]));
  const children = new Map();
  for (const n of desc.nodes) {
    if (!children.has(n.parent)) children.set(n.parent, []);
    children.get(n.parent).push(n);
  }
  const order = new Map(desc.nodes.map((n, i) => [n.id, i]));
  const parentOf = (n) => byId.get(n.parent) || null;
  const ancestors = (n) => {
    const out = [];
    for (let a = parentOf(n); a; a = parentOf(a)) out.push(a);
    return out;
  };
  const contains = (a, b) => a === b || ancestors(b).includes(a);
  const childrenOf = (n) => children.get(n.id) || [];
  const descendants = (n) => {
    const out = [];
    const walk = (x) => {
      for (const c of childrenOf(x)) {
        out.push(c);
        walk(c);
      }
    };
    walk(n);
    return out;
  };
  /** Steps from a up and down to b through their nearest common ancestor. */
  const distance = (a, b) => {
    const up = [a, ...ancestors(a)];
    const other = [b, ...ancestors(b)];
    for (let i = 0; i < up.length; i++) {
      const j = other.indexOf(up[i]);
      if (j >= 0) return i + j;
    }
    return Infinity;
  };
  return { byId, order, parentOf, ancestors, contains, childrenOf, descendants, distance };
}

/** What an element's attributes and classes say about it, as one string of words. */
function words(n) {
  const a = n.attrs || {};
  return [n.tag, ...(n.classes || []), a.id, a.role, a.type, a.name, a['aria-label'], a.title, a.placeholder,
    ...Object.entries(a).filter(([k]) => k.startsWith('data-')).flatMap(([k, v]) => [k, v])].filter(Boolean).join(' ');
}

const isButton = (n) => /^(button)$/.test(n.tag) || n.attrs?.role === 'button' || n.tag === 'input' && /^(submit|button|image)$/.test(n.attrs?.type || '');

// ---- the chat input -----------------------------------------------------------

function scoreInputs(desc, T) {
  const out = [];
  for (const n of desc.nodes) {
    if (!n.editable || !n.visible || n.hidden || n.disabled || n.attrs?.readonly != null) continue;
    const w = `${words(n)} ${n.name || ''}`;
    const why = [];
    let score = n.editable === 'rich' || n.tag === 'textarea' ? 30 : 15;
    why.push(n.tag === 'textarea' ? 'a textarea' : n.editable === 'rich' ? 'an editable area' : 'a text field');
    if (n.attrs?.type === 'search' || n.attrs?.role === 'searchbox' || SEARCH_WORDS.test(w) && !INPUT_WORDS.test(w)) continue;
    if (INPUT_WORDS.test(w)) {
      score += 25;
      if (n.name) why.push(`“${n.name}”`);
    }
    if (T.ancestors(n).some((a) => a.tag === 'form')) {
      score += 10;
      why.push('in a form');
    }
    if (desc.nodes.some((b) => isButton(b) && b.visible && T.distance(b, n) <= 5)) score += 10;
    if (n.rect.y + n.rect.height / 2 > desc.viewport.height / 2) score += 10;
    if (n.rect.width >= desc.viewport.width * 0.3) score += 5;
    out.push({ node: n, score, why: why.join(' ') });
  }
  // The one place on the page to write is very likely the chat's input.
  if (out.length === 1) {
    out[0].score += 10;
    out[0].why += ', the only one on the page';
  }
  return out.sort((a, b) => b.score - a.score);
}

// ---- the send button ------------------------------------------------------------

function scoreSends(desc, T, input) {
  if (!input) return [];
  const form = T.ancestors(input).find((a) => a.tag === 'form');
  const out = [];
  for (const n of desc.nodes) {
    // A button, or an element the page made clickable whose own names say send (a div styled as the send button).
    const named = SEND_IN_NAME.test([...(n.classes || []), n.attrs?.id, n.attrs?.['data-testid']].filter(Boolean).join(' '));
    if (!isButton(n) && !(named && n.tag !== 'form' && n.visible && !desc.nodes.some((c) => c.parent === n.id && isButton(c)))) continue;
    if (n.hidden && !n.disabled) continue;
    if (!isButton(n) && T.ancestors(n).some(isButton)) continue;
    const d = T.distance(n, input);
    if (d > 8) continue;
    const w = `${words(n)} ${n.name || ''}`;
    if (NOT_SEND_WORDS.test(w) && !SEND_WORDS.test(n.name || '') && !named) continue;
    let score = 30 - d * 3 - (isButton(n) ? 0 : 10);
    const why = [];
    if (SEND_WORDS.test(w) || named) {
      score += 40;
      why.push(n.name ? `the button “${n.name}”` : 'a send button');
    } else {
      why.push(n.name ? `the button “${n.name}”` : 'a button');
    }
    if (form && T.contains(form, n) && (n.attrs?.type === 'submit' || n.tag === 'button' && !n.attrs?.type)) {
      score += 20;
      why.push('submits the input’s form');
    }
    if (T.order.get(n.id) > T.order.get(input.id)) score += 5;
    if (!n.visible && !n.disabled) score -= 20;
    why.push('next to the input');
    out.push({ node: n, score, why: why.join(', ') });
  }
  return out.sort((a, b) => b.score - a.score);
}

// ---- the assistant's messages ------------------------------------------------

/** The message each candidate text belongs to: the child of the list (the nearest ancestor holding other messages). */
function messageRoot(T, n, list) {
  let m = n;
  while (m && T.parentOf(m) !== list) m = T.parentOf(m);
  return m;
}

/** Simple selector matching over the description: the compound forms features() makes, and `A B`. */
function matcher(T) {
  const compound = (css) => {
    const parts = [];
    const re = /^([a-z][\w-]*)|\.([\w-]+)|#([\w-]+)|\[([\w-]+)(?:(\*?=)"((?:[^"\\]|\\.)*)")?\]|:not\(([^()]*)\)/gi;
    let rest = css;
    while (rest) {
      re.lastIndex = 0;
      const m = re.exec(rest);
      if (!m || m.index !== 0) return null;
      parts.push(m);
      rest = rest.slice(m[0].length);
    }
    return (n) => parts.every((m) => {
      if (m[1]) return n.tag === m[1].toLowerCase();
      if (m[2]) return (n.classes || []).includes(m[2]);
      if (m[3]) return n.attrs?.id === m[3];
      if (m[4]) {
        const v = m[4] === 'class' ? ((n.classes || []).join(' ') || null) : n.attrs?.[m[4]];
        if (v == null) return false;
        if (!m[5]) return true;
        const want = m[6].replace(/\\(.)/g, '$1');
        return m[5] === '=' ? v === want : String(v).includes(want);
      }
      const not = compound(m[7]);
      return not ? !not(n) : false;
    });
  };
  return (css) => {
    const steps = css.trim().split(/\s+/).map(compound);
    if (steps.some((s) => !s)) return [];
    const last = steps.pop();
    return [...T.byId.values()].filter((n) => {
      if (!last(n)) return false;
      let i = steps.length - 1;
      for (let a = T.parentOf(n); a && i >= 0; a = T.parentOf(a)) if (steps[i](a)) i--;
      return i < 0;
    });
  };
}

const describeForRules = (n) => ({ tag: n.tag, id: n.attrs?.id || '', classes: n.classes || [], attrs: n.attrs || {} });

/** A value that says a state (a reply's status while it streams), not what an element is. */
const STATE_VALUE = /^(true|false|complete|completed|running|pending|streaming|done|loading|idle|active|inactive|open|closed|on|off|\d+)$/i;

/**
 * The stable features of a node, without attribute values that say a state
 * (the attribute's presence is kept), each a selector alone, best first.
 */
function stableFeatures(n, peers = []) {
  const out = [];
  for (const f of P.features(describeForRules(n), peers)) {
    const m = /^([a-z][\w-]*)?\[([\w-]+)="((?:[^"\\]|\\.)*)"\]$/i.exec(f.css);
    if (m && STATE_VALUE.test(m[3])) {
      const css = `${m[1] || ''}[${m[2]}]`;
      if (!out.some((o) => o.css === css)) out.push({ css, rank: f.rank - 10 });
    } else if (!out.some((o) => o.css === f.css)) {
      out.push(f);
    }
  }
  return out.sort((a, b) => b.rank - a.rank);
}

/**
 * A selector for one element of the page that matches it alone: one of its
 * features, else one of an ancestor's followed by one of its own; those
 * holding a word the field is known by (send, message…) first. Null when
 * none is unique (the page side makes a path).
 */
function uniqueSelector(T, match, node, prefer, avoid = () => false) {
  let best = null;
  const consider = (css, rank) => {
    const hits = match(css);
    if (hits.length !== 1 || hits[0] !== node || avoid(css)) return;
    const score = rank + (prefer.test(css) ? 20 : 0);
    if (!best || score > best.score) best = { css, score };
  };
  const own = stableFeatures(node).filter((f) => f.rank > 5 || node.tag === 'textarea');
  for (const f of own) consider(f.css, f.rank);
  if (best) return best.css;
  for (const a of T.ancestors(node).slice(0, 6)) {
    for (const af of stableFeatures(a).filter((f) => f.rank > 5)) for (const f of own) consider(`${af.css} ${f.css}`, Math.min(af.rank, f.rank) - 5);
    if (best) return best.css;
  }
  return null;
}

/** A bar of controls (a message's Copy and Retry): all of its text is its buttons' labels. */
function controlsOnly(T, n) {
  const buttons = T.descendants(n).filter(isButton);
  const outer = buttons.filter((b) => !buttons.some((o) => o !== b && T.contains(o, b)));
  return outer.length > 0 && outer.reduce((sum, b) => sum + b.textLength, 0) >= n.textLength;
}

/**
 * The assistant's messages: seen growing while a reply streamed, else
 * marked as the assistant's by their attributes; the selector that picks one
 * element in each of them and nothing in the person's messages.
 */
function findMessages(desc, T, input) {
  const composer = input ? T.ancestors(input).find((a) => T.descendants(a).some((d) => isButton(d))) || T.parentOf(input) : null;
  const outside = (n) => !composer || !T.contains(composer, n);
  const markedUser = (n) => USER_WORDS.test(words(n)) && !ASSISTANT_WORDS.test(words(n));
  let users = desc.nodes.filter((n) => n.userMessage && outside(n));
  let texts = desc.nodes.filter((n) => n.grew >= 2 && outside(n) && n.textLength > 0 && !users.some((u) => T.contains(u, n) || T.contains(n, u)));
  let how = 'its text grew while the reply streamed';
  let base = 70;
  if (!texts.length) {
    // No reply seen: the elements whose own attributes say they are the assistant's.
    texts = desc.nodes.filter((n) => outside(n) && n.visible && n.textLength > 0 && ASSISTANT_WORDS.test(words(n)) && !USER_WORDS.test(words(n))
      && !isButton(n) && !controlsOnly(T, n) && !T.ancestors(n).some((a) => isButton(a) || a.tag === 'nav' || a.tag === 'header')
      && !T.ancestors(n).some(markedUser));
    how = 'marked as the assistant’s by the page';
    base = 45;
    users = desc.nodes.filter((n) => outside(n) && n.textLength > 0 && markedUser(n) && !desc.nodes.some((c) => c.parent === n.id && markedUser(c)));
  }
  if (!texts.length) return null;
  // The deepest of them that holds the text (the one whose text grew, not its ancestors).
  texts = texts.filter((n) => !texts.some((o) => o !== n && T.contains(n, o)));
  const newest = texts[texts.length - 1];
  // The list: the nearest ancestor of the text that holds another message (a person's, or an earlier reply).
  const others = [...users, ...texts.filter((t) => t !== newest)];
  const list = T.ancestors(newest).find((a) => others.some((o) => T.contains(a, o))) || null;
  const root = list ? messageRoot(T, newest, list) : newest;
  const userRoots = list ? users.map((u) => messageRoot(T, u, list)).filter(Boolean) : [];
  const peers = list ? T.childrenOf(list).map(describeForRules) : [];
  const match = matcher(T);
  const path = [];
  for (let n = newest; n; n = n === root ? null : T.parentOf(n)) path.push(n);
  let best = null;
  const consider = (css, rank, depth) => {
    const hits = match(css);
    if (!hits.includes(path[depth]) && !hits.some((h) => T.contains(h, newest) && T.contains(root, h))) return;
    if (hits.some((h) => !outside(h) || userRoots.some((u) => T.contains(u, h)))) return;
    // One element per message.
    const owners = hits.map((h) => (list ? messageRoot(T, h, list) : h));
    if (new Set(owners).size !== owners.length) return;
    const score = rank - depth * 3 + (texts.every((t) => hits.some((h) => T.contains(h, t))) ? 10 : 0);
    if (!best || score > best.score) best = { css, score, count: hits.length };
  };
  path.forEach((n, depth) => {
    for (const f of stableFeatures(n, n === root ? peers : [])) {
      if (f.rank <= 5) continue;
      consider(f.css, f.rank, depth);
      if (n !== root) {
        for (const r of stableFeatures(root, peers)) if (r.rank > 5) consider(`${r.css} ${f.css}`, Math.min(r.rank, f.rank) + 5, depth);
      }
    }
  });
  if (!best) return null;
  const confirmed = base + (users.length ? 15 : 0) + (best.score >= 50 ? 10 : 0);
  return {
    node: newest, selector: best.css, score: confirmed, count: best.count,
    why: `the reply: ${how}${users.length ? ', apart from your message' : ''}`,
  };
}

// ---- the streaming sign -----------------------------------------------------------

function findStreaming(desc, T, input) {
  // Seen: a control that showed only while the reply streamed.
  const match = matcher(T);
  for (const s of desc.streamed || []) {
    const w = `${words(s)} ${s.name || ''}`;
    const f = stableFeatures(s).filter((x) => x.rank > 5 && match(x.css).every((n) => !n.visible))
      .sort((a, b) => (STOP_WORDS.test(b.css) ? 20 : 0) + b.rank - (STOP_WORDS.test(a.css) ? 20 : 0) - a.rank)[0];
    if (f) return { selector: f.css, score: STOP_WORDS.test(w) ? 85 : 65, why: `${s.name ? `“${s.name}”` : 'a control'} showed while the reply streamed` };
  }
  // Streaming now: a stop button by the input.
  const stop = desc.nodes.find((n) => isButton(n) && n.visible && STOP_WORDS.test(`${words(n)} ${n.name || ''}`) && (!input || T.distance(n, input) <= 8));
  if (stop) return { node: stop, score: 65, why: `the button “${stop.name || 'Stop'}” by the input` };
  // The messages carry a streaming attribute ("false" when done).
  for (const n of desc.nodes) {
    for (const [k, v] of Object.entries(n.attrs || {})) {
      if (k.startsWith('data-') && STREAM_ATTR.test(k) && (v === 'false' || v === 'true') && P.ident(k)) {
        return { selector: `[${k}="true"]`, score: 70, why: `the page marks a reply ${k}` };
      }
    }
  }
  // A hidden stop control that stays in the page.
  const hidden = desc.nodes.find((n) => isButton(n) && !n.visible && STOP_WORDS.test(`${words(n)} ${n.name || ''}`));
  if (hidden) return { node: hidden, score: 55, why: `a hidden “${hidden.name || 'Stop'}” button` };
  return null;
}

/**
 * Proposes the four fields.
 * @param {PageDescription} desc
 * @returns {Object<'destination'|'sendButton'|'source'|'streaming', {node?: number, selector?: string, sure: boolean, why: string}|null>}
 */
function propose(desc) {
  const T = tree(desc);
  const result = {};
  const inputs = scoreInputs(desc, T);
  const input = inputs[0];
  const close = inputs[1] && input.score - inputs[1].score < 10;
  const match = matcher(T);
  result.destination = input ? {
    node: input.node.id, selector: uniqueSelector(T, match, input.node, INPUT_WORDS) || undefined, sure: input.score >= SURE.destination && !close, why: input.why,
  } : null;
  const sends = scoreSends(desc, T, input?.node);
  const send = sends[0];
  // The send button's selector must not also name a control that shows only while a reply streams (a stop button styled alike).
  const streamedMatch = (css) => (desc.streamed || []).some((c) => {
    const last = css.trim().split(/\s+/).pop();
    return matcher(tree({ nodes: [{ ...c, id: 0, parent: -1 }] }))(last).length > 0;
  });
  result.sendButton = send ? {
    node: send.node.id, selector: uniqueSelector(T, match, send.node, SEND_IN_NAME, streamedMatch) || undefined,
    sure: send.score >= SURE.sendButton && !(sends[1] && send.score - sends[1].score < 10), why: send.why,
  } : null;
  const messages = findMessages(desc, T, input?.node);
  result.source = messages ? { node: messages.node.id, selector: messages.selector, sure: messages.score >= SURE.source, why: messages.why } : null;
  const streaming = findStreaming(desc, T, input?.node);
  result.streaming = streaming ? { node: streaming.node?.id, selector: streaming.selector, sure: streaming.score >= SURE.streaming, why: streaming.why } : null;
  return result;
}

/**
 * The control a click at (x, y) means, when the element hit is not one: of
 * the button-like candidates (descendants of what the pointer hit, and
 * elements the hit test skipped, such as a disabled button with
 * pointer-events: none), the smallest whose box holds the point.
 * @param {Array<{rect: {x: number, y: number, width: number, height: number}}>} candidates
 * @returns {number} its index, -1 for none
 */
function controlAt(candidates, x, y) {
  let best = -1;
  candidates.forEach((c, i) => {
    const r = c.rect;
    if (x < r.x || y < r.y || x > r.x + r.width || y > r.y + r.height || !r.width || !r.height) return;
    if (best < 0 || r.width * r.height < candidates[best].rect.width * candidates[best].rect.height) best = i;
  });
  return best;
}

export { propose, controlAt, SURE };
