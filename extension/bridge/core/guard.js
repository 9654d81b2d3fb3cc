// Execute-at-most-once and the safety limits of the chat bridge. Pure state
// transitions; the worker persists the state per origin in chrome.storage.
//
// A message is identified by the content script: an id for the element (and
// for each new text the site writes into the same element) within one page
// load, plus whether it was seen streaming. Its place is the conversation
// (the URL path), its position among the assistant messages and a hash of its
// text. A message is new at a place never seen before; at a place seen before
// it is new only when it was seen streaming in the same page load that saw
// the earlier one (a new reply written in place, or a new conversation at the
// same path). So a reload, a re-render or a second tab showing the same
// conversation runs nothing again, whatever its text.

/** 64-bit FNV-1a of a string, as 16 hex digits (two 32-bit lanes). */
export function hashText(text) {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
    b ^= b >>> 13;
  }
  return a.toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** The place of a message: conversation path, position among the assistant messages, text hash. */
export function placeKey(conversation, index, text) {
  return `${conversation}\u0000${index}:${hashText(String(text))}`;
}

/** Why admitCall refuses a call: too many in a row, or the same call again. */
export const GUARD_CODES = Object.freeze({
  CALL_LIMIT: 'CALL_LIMIT',
  REPEATED_CALL: 'REPEATED_CALL',
});

/** How many messages each origin remembers. */
export const MAX_KEYS = 200;

/**
 * Decides whether an extracted call is a new message, and records it if so.
 * @param {Array<[string, string, string]>} seen [place, id, page] of earlier messages, newest last
 * @param {{conversation: string, index: number, text: string, id: string, page: string, streamed: boolean}} m
 *   id: the message within its page load; page: the page load (tab and document)
 * @returns {{fresh: boolean, reason?: string, seen: Array<[string, string, string]>}}
 */
export function admitMessage(seen, m, max = MAX_KEYS) {
  const list = Array.isArray(seen) ? seen : [];
  const place = placeKey(m.conversation, m.index, m.text);
  const again = (reason = 'already executed') => ({ fresh: false, reason, seen: list });
  if (list.some(([, id, page]) => id === m.id && page === m.page)) return again();
  const earlier = list.filter(([p]) => p === place);
  if (earlier.length && !(m.streamed && earlier.every(([, , page]) => page === m.page))) return again();
  return { fresh: true, seen: [...list, [place, m.id, m.page]].slice(-max) };
}

/** Canonical JSON of a call (sorted keys), to spot repeats. */
export function callSignature(call) {
  return canonical({ capability: call.capability, arguments: call.arguments ?? {} });
}

function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Defaults of the safety limits. */
export const SAFETY_DEFAULTS = Object.freeze({ maxConsecutive: 25, maxRepeats: 3 });

/** A fresh safety state. */
export function freshSafety() {
  return { consecutive: 0, lastSignature: null, repeats: 0, conversation: null };
}

/**
 * Decides whether one more call may run, and the next state if it does.
 * Refuses the call that would exceed maxConsecutive calls without a human
 * message, and the maxRepeats-th identical call in a row within one
 * conversation (a new conversation starts the repeat count again).
 * @param {string|null} [conversation] the URL path of the call's conversation
 * @returns {{allowed: true, state: object} | {allowed: false, code: string, reason: string, state: object}}
 */
export function admitCall(state, call, limits = {}, conversation = null) {
  const { maxConsecutive, maxRepeats } = { ...SAFETY_DEFAULTS, ...limits };
  const s = { ...freshSafety(), ...(state || {}) };
  if (s.consecutive >= maxConsecutive) {
    return {
      allowed: false, code: GUARD_CODES.CALL_LIMIT, state: s,
      reason: `stopped: ${s.consecutive} tool calls in a row without a message from you (limit ${maxConsecutive})`,
    };
  }
  const sig = callSignature(call);
  const sameConversation = conversation === null || s.conversation === null || s.conversation === conversation;
  const repeats = sameConversation && sig === s.lastSignature ? s.repeats + 1 : 1;
  if (repeats >= maxRepeats) {
    return {
      allowed: false, code: GUARD_CODES.REPEATED_CALL, state: s,
      reason: `stopped: the same call ${call.capability} ${repeats} times in a row`,
    };
  }
  return { allowed: true, state: { consecutive: s.consecutive + 1, lastSignature: sig, repeats, conversation: conversation ?? s.conversation } };
}

/** A message from the person resets the counters. */
export function humanMessage() {
  return freshSafety();
}
