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
 * @property {string} [text] the start of its text, whitespace collapsed
 * @property {number} [grew] how many times its own text grew while a reply streamed (after the person sent)
 * @property {number} [typed] how many times its text grew while the person typed (a measuring copy of the input)
 * @property {boolean} [added] added to the page while it was watched
 * @property {boolean} [userMessage] holds the text the person sent while the page was watched
 * @property {boolean} [clicked] what the person clicked to send their message
 *
 * @typedef {object} PageDescription
 * @property {DNode[]} nodes in document order
 * @property {{width: number, height: number}} viewport
 * @property {Array<StreamedControl>} [streamed] controls that showed only while a reply streamed (gone or hidden now)
 * @property {'click'|'enter'|''} [sentBy] how the person sent their message: a click on a control, or Enter in the input
 *
 * @typedef {object} StreamedControl
 * @property {string} tag
 * @property {Object<string, string>} attrs
 * @property {string[]} classes
 * @property {string} name
 * @property {'button'|'pointer'} [clickable] a button, or an element the page made clickable (a pointer cursor)
 * @property {boolean} [near] by the input when it showed
 * @property {boolean} [inReply] inside the reply (a code block's Copy)
 * @property {boolean} [icon] holds an icon and no text
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
  // What the person clicked to send their message is the send button: they showed it.
  const clicked = desc.nodes.find((n) => n.clicked && n.tag !== 'form');
  if (clicked) return [{ node: clicked, score: 100, why: `${clicked.name ? `“${clicked.name}”: ` : ''}you clicked it to send your message` }];
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

/** The stable features of a node (pick_rules: no generated values, no state classes or values), best first. */
const stableFeatures = (n, peers = []) => P.features(describeForRules(n), peers);

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
 * A label, not a message: a short text that stands the same in another
 * element of the page (each reply's header naming the model, "Assistant").
 */
function isLabel(desc, n) {
  const text = (n.text || '').trim();
  if (!text || text.length > 40) return false;
  return desc.nodes.some((o) => o !== n && (o.text || '').trim() === text && o.tag === n.tag && !o.editable);
}

/**
 * The assistant's messages: the element seen growing while a reply streamed
 * (after the person sent, never while they typed), visible, in the list that
 * holds the person's message, with a selector that picks one element in each
 * message of that list and nothing in the person's messages or elsewhere;
 * else, unsure, elements the page marks as the assistant's.
 */
function findMessages(desc, T, input) {
  const composer = input ? T.ancestors(input).find((a) => T.descendants(a).some((d) => isButton(d))) || T.parentOf(input) : null;
  const outside = (n) => !composer || !T.contains(composer, n);
  const markedUser = (n) => USER_WORDS.test(words(n)) && !ASSISTANT_WORDS.test(words(n));
  const reply = (n) => outside(n) && n.visible && !n.hidden && n.textLength > 0 && !n.typed && !n.editable && !isLabel(desc, n);
  let users = desc.nodes.filter((n) => n.userMessage && outside(n));
  let texts = desc.nodes.filter((n) => n.grew >= 2 && reply(n) && !users.some((u) => T.contains(u, n) || T.contains(n, u)));
  let how = 'its text grew while the reply streamed';
  let seen = true;
  if (!texts.length) {
    // No reply seen: the elements whose own attributes say they are the assistant's.
    texts = desc.nodes.filter((n) => reply(n) && ASSISTANT_WORDS.test(words(n)) && !USER_WORDS.test(words(n))
      && !isButton(n) && !controlsOnly(T, n) && !T.ancestors(n).some((a) => isButton(a) || a.tag === 'nav' || a.tag === 'header')
      && !T.ancestors(n).some(markedUser));
    how = 'marked as the assistant’s by the page (no reply seen streaming yet)';
    seen = false;
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
    // One element per message; with a list, nothing outside it, and never a label.
    const owners = hits.map((h) => (list ? messageRoot(T, h, list) : h));
    if (new Set(owners).size !== owners.length) return;
    const inList = !list || hits.every((h) => T.contains(list, h));
    if (!inList && list) return;
    if (hits.some((h) => isLabel(desc, h) && !texts.includes(h))) return;
    // An element above the reply's text that holds more text (a header naming the model, a timestamp) reads more than the reply.
    const extra = path[depth].textLength > newest.textLength ? 15 : 0;
    const score = rank - depth * 3 - extra + (texts.every((t) => hits.some((h) => T.contains(h, t))) ? 10 : 0);
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
  // Sure only of a reply seen growing, kept apart from the person's message in the same list.
  const apartFromYours = seen && !!list && userRoots.length > 0;
  const confirmed = apartFromYours ? 85 + (best.score >= 50 ? 10 : 0) : seen ? 55 : 40;
  return {
    node: newest, selector: best.css, score: confirmed, count: best.count,
    why: `the reply: ${how}${apartFromYours ? ', apart from your message' : ''}`,
  };
}

// ---- the streaming sign -----------------------------------------------------------

/** How a control the page showed reads for the person: <div class="a b"> “Stop”, holding an icon. */
function seenAs(c) {
  // The classes that say what it is or what state it was in, not generated ones (css-1x2y3z).
  const classes = (c.classes || []).filter((k) => P.classFeature(k) || P.isStateClass(k)).slice(0, 4).join(' ');
  const tag = `<${c.tag}${classes ? ` class="${classes}"` : ''}${c.attrs?.role ? ` role="${c.attrs.role}"` : ''}>`;
  return [tag, c.name ? `“${c.name}”` : '', c.icon ? 'holding an icon' : '', c.near ? 'by the input' : ''].filter(Boolean).join(', ');
}

function findStreaming(desc, T, input) {
  // Seen: a control (a button, or an element the page made clickable) that showed only while the reply streamed.
  const match = matcher(T);
  const seen = (desc.streamed || []).filter((s) => !s.inReply)
    .map((s) => ({ s, stop: STOP_WORDS.test(`${words(s)} ${s.name || ''}`) }))
    .sort((a, b) => Number(b.stop) - Number(a.stop) || Number(!!b.s.near) - Number(!!a.s.near));
  for (const { s, stop } of seen) {
    const f = stableFeatures(s).filter((x) => x.rank > 5 && match(x.css).every((n) => !n.visible))
      .sort((a, b) => (STOP_WORDS.test(b.css) ? 20 : 0) + b.rank - (STOP_WORDS.test(a.css) ? 20 : 0) - a.rank)[0];
    if (!f) continue;
    // Sure of a stop control by its name, or of a control that showed by the input only while the reply streamed.
    const score = stop ? 85 : s.near ? 65 : 45;
    return { selector: f.css, score, seen: seenAs(s), why: `${s.name ? `“${s.name}”` : stop ? 'a stop control' : 'a control'} showed while the reply streamed` };
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
 * @returns {Object<'destination'|'sendButton'|'source'|'streaming', {node?: number, selector?: string, sure: boolean, why: string, seen?: string, enter?: boolean}|null>}
 *   seen: how the streaming sign looked (it is gone once the reply ends); enter: the person sent with Enter
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
  // Sent with Enter: the button is a guess from the page alone, and sending with Enter is offered.
  const enter = desc.sentBy === 'enter';
  result.sendButton = send ? {
    node: send.node.id, selector: uniqueSelector(T, match, send.node, SEND_IN_NAME, streamedMatch) || undefined,
    sure: send.score >= SURE.sendButton && !(sends[1] && send.score - sends[1].score < 10),
    why: `${send.why}${enter ? '; you sent with Enter' : ''}`, enter,
  } : enter ? { sure: false, why: 'you sent with Enter, and no send button was found', enter } : null;
  const messages = findMessages(desc, T, input?.node);
  result.source = messages ? { node: messages.node.id, selector: messages.selector, sure: messages.score >= SURE.source, why: messages.why } : null;
  const streaming = findStreaming(desc, T, input?.node);
  result.streaming = streaming ? { node: streaming.node?.id, selector: streaming.selector, sure: streaming.score >= SURE.streaming, why: streaming.why, seen: streaming.seen } : null;
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
