// Execute-at-most-once and the safety limits of the chat bridge. Pure state
// transitions; the worker persists the state per origin in chrome.storage.
//
// Whether a reply is new is decided in the page, from what the bridge saw
// arrive (bridge/core/arrival.js): a reply that did not arrive is never run,
// and says why (arrivalReason). A reply that arrived is known by its page load
// and its id there; the worker records each one it runs, so the same reply
// handed over again (after a worker restart, say) does not run again, and a
// reply with the text of one that ran, which arrived before that one's result
// was delivered, is the same reply shown again (a second tab of the
// conversation, an element the site swapped while the call ran), not a new one.

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

/** Why admitCall refuses a call: too many in a row, or the same call again. */
export const GUARD_CODES = Object.freeze({
  CALL_LIMIT: 'CALL_LIMIT',
  REPEATED_CALL: 'REPEATED_CALL',
});

/** How many replies each origin remembers. */
export const MAX_KEYS = 200;

/** Why a reply the page did not see arrive is not run, by the page's reason (arrival.js's WHY). */
export function arrivalReason(why) {
  return why === 'baseline'
    ? 'it was already on the page when the bridge started watching (Start, a reload or a navigation)'
    : 'it came into view without being written or following a message you or the bridge sent (scrolling or switching conversations shows old replies)';
}

/**
 * Decides whether a reply that arrived is a new call, and records it if so.
 * @param {Array<{page: string, reply: number, hash: string, arrivedAt: number, admittedAt: number, doneAt: number|null}>} seen
 *   the replies run so far, newest last
 * @param {{page: string, reply: number, text: string, arrivedAt: number}} m page: the page load (tab and
 *   document); reply: the reply's id there; arrivedAt: when the page saw it arrive
 * @param {{now: number, running?: (entry: object) => boolean, max?: number}} o running: whether this
 *   worker is running the entry's call now
 * @returns {{fresh: boolean, interrupted?: boolean, reason?: string, seen: Array<object>}}
 *   interrupted: the reply's call was running when the worker that ran it went away
 */
export function admitReply(seen, m, { now, running = () => false, max = MAX_KEYS }) {
  const list = Array.isArray(seen) ? seen : [];
  const again = list.find((e) => e.page === m.page && e.reply === m.reply);
  if (again) {
    if (again.doneAt === null && !running(again)) return { fresh: false, interrupted: true, seen: list };
    return { fresh: false, reason: 'it already ran', seen: list };
  }
  const hash = hashText(String(m.text));
  const until = (e) => e.doneAt ?? (running(e) ? Infinity : e.admittedAt);
  const twin = list.find((e) => e.hash === hash && m.arrivedAt <= until(e));
  if (twin) {
    return {
      fresh: false, seen: list,
      reason: twin.page === m.page
        ? 'the page showed the reply that just ran again before its result was delivered'
        : 'another tab of this site ran the same reply',
    };
  }
  const entry = { page: m.page, reply: m.reply, hash, arrivedAt: m.arrivedAt, admittedAt: now, doneAt: null };
  return { fresh: true, seen: [...list, entry].slice(-max) };
}

/** Records that a reply's call ended (its result delivered, or not deliverable) at now. */
export function replyDone(seen, page, reply, now) {
  return (Array.isArray(seen) ? seen : []).map((e) => (e.page === page && e.reply === reply ? { ...e, doneAt: now } : e));
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
 * @param {string|null} [conversation] the call's conversation (the URL's path and fragment)
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
