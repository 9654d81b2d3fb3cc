// The Side Panel's side of the Page Assistant: it relays the run of a task
// that came from a page back to that page's bar.
//
// The panel runs a page's task with its own code path (validation, loop,
// Stop), so the page sees exactly the panel's messages. This module only
// decides which tab owns the current run and which session events it gets,
// trimmed to what the bar draws (core/page_assistant_state.js). The sender is
// injected; the default hands each event to the worker (the link's
// relayToPage, PAGE_ASSISTANT.RELAY), which posts it to the bar's frame in
// that tab over the frame's port, so the run's events never reach the page's
// renderer. Tests pass their own sender.

import { PAGE_ASSISTANT_EVENT } from '../../shared/core/messages.js';
import { link } from './worker_link.js';

/** Longest streamed reply relayed per delta (the bar shows a short tail of it). */
export const DELTA_MAX = 4000;

/**
 * A session event as the page's bar needs it, or null for events it ignores.
 * A retry's delay becomes the time of the next try (`until`, ms epoch), so the
 * bar's countdown does not depend on when the relayed event arrives.
 * @param {object} e an AgentSession event
 * @param {number} [now] ms epoch
 */
export function pageEvent(e, now = Date.now()) {
  switch (e?.type) {
    case 'attached': return { type: 'attached' };
    case 'step': return { type: 'step', step: e.step, phase: e.phase };
    case 'delta': return { type: 'delta', step: e.step, text: String(e.text ?? '').slice(-DELTA_MAX) };
    case 'action': return { type: 'action', step: e.step, think: e.think, actionText: e.actionText };
    case 'retry': return { type: 'retry', step: e.step, reason: String(e.reason ?? ''), attempt: e.attempt, until: now + (Number(e.delayMs) || 0) };
    case 'paused': return { type: 'paused', step: e.step };
    case 'resumed': return { type: 'resumed', step: e.step };
    // 'end' is relayed by outcome(): the panel also ends runs without a session event (Stop while asking).
    default: return null;
  }
}

/** The message the bar's frame receives (frame/page_assistant_frame.js accepts only this type, only on its port). */
export const wrap = (event) => ({ type: PAGE_ASSISTANT_EVENT, event });

/**
 * @param {{send?: (tabId:number, message:object) => Promise<any>|any}} [o]
 */
export function createPageRelay(o = {}) {
  const send = o.send || ((tabId, m) => link.relayToPage(tabId, m.event));
  let owner = null;
  const to = (tabId, event) => {
    if (tabId === null || tabId === undefined) return;
    try {
      Promise.resolve(send(tabId, wrap(event))).catch(() => {});
    } catch { /* the tab is gone */ }
  };
  return {
    /** The tab whose bar follows the current run, or null when the panel started it. */
    get owner() { return owner; },
    /**
     * Called when a task starts: a page task makes its tab the owner; a new
     * panel task clears it; a reply from the panel keeps it (the page asked).
     */
    begin(tabId, replying = false) {
      if (tabId !== undefined && tabId !== null) owner = tabId;
      else if (!replying) owner = null;
    },
    /** False (and the page told why) when a page task arrives while one runs. */
    accept(tabId, running) {
      if (!running) return true;
      to(tabId, { type: 'error', message: 'A task is already running; stop it first.' });
      return false;
    },
    /** True when a Stop from tabId concerns the current run. */
    owns(tabId) { return owner !== null && owner === tabId; },
    /** Relays a session event to the owning page. */
    event(e) {
      const p = pageEvent(e);
      if (p) to(owner, p);
    },
    /** Relays how the run ended, whichever way the panel learnt it. */
    outcome(e) { to(owner, { type: 'end', outcome: e.outcome, answer: e.answer, question: e.question, error: e.error, step: e.step }); },
    /** The validation message the panel showed (same text on the page). */
    blocked(v) { to(owner, { type: 'blocked', code: v.code, message: v.message }); },
    /** An unexpected failure the panel showed. */
    error(message) { to(owner, { type: 'error', message: String(message) }); },
  };
}

/** The panel's relay. */
export const pageRelay = createPageRelay();
