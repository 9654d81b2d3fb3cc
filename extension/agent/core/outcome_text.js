// How a task's outcome reads in the Side Panel: its line in the log, the
// tally of what its requests used, and the question a conversation still
// waits to have answered. Pure: no DOM, no chrome.*.

import { OUTCOME } from './agent_session.js';

/** The log line for an end event e ({outcome, answer, question, error, step}). */
export function outcomeText(e) {
  const at = e.step > 0 ? ` at step ${e.step}` : '';
  return {
    [OUTCOME.FINISHED]: `Finished: ${e.answer || '(no answer given)'}`,
    [OUTCOME.CALL_USER]: `The agent asks: ${e.question}`,
    [OUTCOME.STOPPED]: `Stopped${e.compaction ? ' while compacting the conversation' : at}.`,
    [OUTCOME.STEP_LIMIT]: `Stopped: ${e.error}.`,
    [OUTCOME.ERROR]: `Error: ${e.error}`,
    [OUTCOME.INTERRUPTED]: `Interrupted${at}: ${e.error}.`,
  }[e.outcome];
}

/**
 * The class list of an outcome's log entry: each outcome looks different
 * (sidepanel.css colours them by data-outcome as well).
 */
export function outcomeClass(outcome) {
  return outcome === OUTCOME.ERROR ? 'outcome error' : outcome === OUTCOME.CALL_USER ? 'outcome question' : 'outcome';
}

/**
 * What a whole task used, from its meter (task_meter.js snapshot: steps,
 * requests, prompt and completion tokens, estimated), across a reopen.
 */
export function usageLine(m) {
  const e = m.estimated ? '≈' : '';
  return `${m.steps} step(s), ${m.requests} request(s), ${e}${m.promptTokens} prompt + ${e}${m.completionTokens} completion tokens${m.estimated ? ' (estimated: the server reported no usage)' : ''}`;
}

/** Model API errors that a setting fixes (the key, the model): the entry offers "Open settings". */
export const SETTINGS_ERRORS = Object.freeze(['http_401', 'http_403']);

/**
 * The CallUser outcome the conversation ends with, still unanswered, or
 * null. Only notes and summaries may follow it.
 */
export function pendingQuestion(records) {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r.kind === 'note' || r.kind === 'summary') continue;
    return r.kind === 'outcome' && r.outcome === 'call_user' ? r : null;
  }
  return null;
}

/**
 * The log line of what the user sent: an answer given by acting on the page
 * is marked so, unless its words already say it ("I did it on the page.").
 */
export function userText(text, acted) {
  const t = String(text ?? '');
  return acted && !/\bon the page\b/i.test(t) ? `${t} (acted on the page)` : t;
}
