// The chat bridge's decision on one settled reply, pure: what the page
// handed over and the origin's state in; the verdict for the page, the
// storage writes and what to show and record out. bridge/worker/reply_port.js
// reads the state, applies the writes (the admission under the origin's
// lock) and runs the call; each step here is one function:
//
//   gateReply    is the origin armed, is the reply identified, is it a call
//                (the gate's contract), did it arrive (was it written, not
//                merely shown)?
//   admitReply   under the origin's lock: is it new (dedup across tabs and
//                worker restarts), was it interrupted by a worker that went
//                away, do the safety limits let it run?
//   ranReply     the verdict once the call ran.
//
// A decision is {verdict?, writes?, lastEvent?, badge?: [state, detail],
// record?, disarm?, markDone?, run?}: writes are the origin's new state by
// name ({seen, safety}: storage.session under stateKeys); record says what the activity log gets ({notACall: reason},
// {stopped: reason} or {call: reply}); disarm, the reason to stop the
// origin; markDone, that the reply's call has ended; run, that the call runs.

import { parseToolCall } from './parser.js';
import { admitCall, admitReply as admitSeen, arrivalReason } from './guard.js';
import { formatReply, imagesIn, interruptedReply } from './result_format.js';
import { imageLabel } from './image_note.js';

/**
 * The storage.session key that asks the worker to acknowledge every verdict
 * (ackEntry under `ack:<origin>`): set only by the tests, which wait on it.
 */
export const TEST_ACKS_KEY = 'test.acks';

/** The storage.session keys of an origin's bridge state. */
export function stateKeys(origin) {
  return { seen: `seen:${origin}`, safety: `safety:${origin}`, ack: `ack:${origin}` };
}

/**
 * Why a call may have run although no result came: the page's notice, the
 * badge and the Last line say it. capability null: the page lost the worker
 * before it knew which call it was running.
 */
export function workerStoppedWhile(capability) {
  return capability
    ? `the extension's worker stopped while ${capability} was running; it may have run on the desktop`
    : 'the extension\'s worker stopped while it was handling a call; it may have run on the desktop';
}

/** A call this origin does not run: the badge and the Last line say why. */
function skip(capability, reason) {
  return {
    verdict: { action: 'none', call: true, skipped: true, reason },
    lastEvent: { kind: 'skipped', capability, reason },
    badge: ['skipped', `${capability}: ${reason}`],
  };
}

/**
 * Before the lock: the verdict for a reply that is not a call to run here,
 * or {go} with what admitReply and the runner need.
 * @param {object} m the content script's BRIDGE_CALL.EXTRACTED message
 * @param {{armed: boolean, tabId: number, prefixes: string[], now: number}} state
 */
export function gateReply(m, { armed, tabId, prefixes, now }) {
  if (!armed) return { verdict: { action: 'none', reason: 'not armed' } };
  const text = typeof m.text === 'string' ? m.text : '';
  const page = typeof m.page === 'string' && m.page ? `${tabId}/${m.page.slice(0, 100)}` : '';
  if (!page || !Number.isInteger(m.reply)) return { verdict: { action: 'none', reason: 'no reply id' } };
  const gate = parseToolCall(text, { prefixes });
  if (!gate.ok) return { verdict: { action: 'none', reason: gate.reason }, record: { notACall: gate.reason } };
  const { capability } = gate.call;
  if (m.arrived !== true) return skip(capability, arrivalReason(m.why));
  return {
    go: {
      call: gate.call, capability, page, reply: m.reply, text,
      conversation: typeof m.conversation === 'string' ? m.conversation.slice(0, 2048) : '/',
      arrivedAt: Number.isFinite(m.arrivedAt) ? m.arrivedAt : now,
    },
  };
}

/**
 * Under the origin's lock (two tabs showing the same conversation must not
 * both run its newest call): the decision on a gated reply.
 * @param {object} go gateReply's go
 * @param {{seen: Array, safety: object, settings: {maxChars: number, autoSend: boolean, maxConsecutive: number}, now: number, running: (entry: object) => boolean}} state
 *   seen and safety: the origin's stored lists; running: whether this worker runs an entry's call
 */
export function admitReply(go, { seen, safety, settings, now, running }) {
  const { capability } = go;
  const admitted = admitSeen(seen, { page: go.page, reply: go.reply, text: go.text, arrivedAt: go.arrivedAt }, { now, running });
  if (admitted.interrupted) {
    // This reply's call was running when the worker that ran it went away.
    const why = workerStoppedWhile(capability);
    const reply = interruptedReply(capability);
    return {
      markDone: true,
      lastEvent: { kind: 'failed', stage: 'interrupted', error: why },
      badge: ['error', why],
      record: { call: reply },
      verdict: { action: 'inject', call: true, text: formatReply(reply, { maxChars: settings.maxChars }), autoSend: settings.autoSend },
    };
  }
  if (!admitted.fresh) return skip(capability, admitted.reason);
  const safe = admitCall(safety, go.call, { maxConsecutive: settings.maxConsecutive }, go.conversation);
  if (!safe.allowed) {
    return {
      writes: { seen: admitted.seen },
      record: { stopped: safe.reason },
      disarm: safe.reason,
      verdict: { action: 'stopped', call: true, code: safe.code, reason: `Gnosis ${safe.reason}. Start again from the options page.` },
    };
  }
  return { writes: { seen: admitted.seen, safety: safe.state }, run: true };
}

/** The page's notice of a call now running: the capability, and what to write should this worker go away. */
export function runningNotice(capability, settings) {
  return { capability, interrupted: formatReply(interruptedReply(capability), { maxChars: settings.maxChars }), why: workerStoppedWhile(capability) };
}

/** What the error badge says about a call that failed: its code, and for an interrupted call that it may have run. */
function badgeDetail(capability, result) {
  return result.interrupted ? `${result.code}: ${capability} was interrupted and may have run` : result.code;
}

/**
 * After the call ran: the verdict (nothing to write when the origin was
 * stopped meanwhile; each image of the result reads "[image n of N: see
 * below]", the page adds what became of it), the Last line and the badge.
 * @param {object} go gateReply's go
 * @param {{result: object, armed: boolean, settings: {maxChars: number, autoSend: boolean}}} state
 */
export function ranReply(go, { result, armed, settings }) {
  if (!armed) return { verdict: { action: 'none', call: true, reason: 'stopped while running' } };
  const failed = result.ok ? undefined : badgeDetail(go.capability, result);
  const images = imagesIn(result).length;
  return {
    lastEvent: { kind: 'executed', capability: go.capability, ok: !!result.ok, code: result.code },
    badge: [result.ok ? 'armed' : 'error', failed],
    verdict: {
      action: 'inject', call: true, text: formatReply(result, { maxChars: settings.maxChars, imageLabel: (n) => imageLabel(n, images) }),
      autoSend: settings.autoSend, page: go.page, reply: go.reply, failed,
    },
  };
}

/** What told the page a reply was done: its streaming indicator went away, or the quiet time passed. */
const ENDED = new Set(['indicator', 'quiet']);

/**
 * The acknowledgment of one verdict (tests only, TEST_ACKS_KEY): the count so
 * far, the reply's index in the page, what told the page it was done ('' for
 * a reply handed over at once) and the verdict.
 */
export function ackEntry(previous, message, verdict) {
  return {
    count: (previous?.count || 0) + 1,
    index: Number.isInteger(message?.index) ? message.index : -1,
    ended: ENDED.has(message?.ended) ? message.ended : '',
    action: verdict?.action || 'error',
    reason: verdict?.reason || '',
  };
}
