// Execute-at-most-once and the safety limits of the chat bridge. Pure state
// transitions; the worker persists the state per origin in chrome.storage.
//
// Dedup key: the newest message's position (how many messages match the
// source) plus a hash of its text. A reload re-renders the same old message
// at the same position with the same text, so it is skipped; the same call in
// a later message has a new position, so it runs.

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

/** The dedup key of the newest message: `${index}:${hash}`. */
export function messageKey(index, text) {
  return `${index}:${hashText(String(text))}`;
}

/** How many keys each origin keeps. */
export const MAX_KEYS = 200;

/** Adds key to a bounded list (newest last); returns a new list. */
export function remember(keys, key, max = MAX_KEYS) {
  const list = (keys || []).filter((k) => k !== key);
  list.push(key);
  return list.slice(-max);
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
  return { consecutive: 0, lastSignature: null, repeats: 0 };
}

/**
 * Decides whether one more call may run, and the next state if it does.
 * Refuses the call that would exceed maxConsecutive calls without a human
 * message, and the maxRepeats-th identical call in a row.
 * @returns {{allowed: true, state: object} | {allowed: false, code: string, reason: string, state: object}}
 */
export function admitCall(state, call, limits = {}) {
  const { maxConsecutive, maxRepeats } = { ...SAFETY_DEFAULTS, ...limits };
  const s = { ...freshSafety(), ...(state || {}) };
  if (s.consecutive >= maxConsecutive) {
    return {
      allowed: false, code: 'CALL_LIMIT', state: s,
      reason: `stopped: ${s.consecutive} tool calls in a row without a message from you (limit ${maxConsecutive})`,
    };
  }
  const sig = callSignature(call);
  const repeats = sig === s.lastSignature ? s.repeats + 1 : 1;
  if (repeats >= maxRepeats) {
    return {
      allowed: false, code: 'REPEATED_CALL', state: s,
      reason: `stopped: the same call ${call.capability} ${repeats} times in a row`,
    };
  }
  return { allowed: true, state: { consecutive: s.consecutive + 1, lastSignature: sig, repeats } };
}

/** A message from the person resets the counters. */
export function humanMessage() {
  return freshSafety();
}
