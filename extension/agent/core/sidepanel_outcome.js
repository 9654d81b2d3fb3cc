// How a task's outcome reads in the Side Panel: its line in the log, the
// tally of what its requests used, and the question a conversation still
// waits to have answered. Pure: no DOM, no chrome.*.

import { OUTCOME } from './agent_session.js';

/** The log line for an end event e ({outcome, answer, question, error}). */
export function outcomeText(e) {
  return {
    [OUTCOME.FINISHED]: `Finished: ${e.answer || '(no answer given)'}`,
    [OUTCOME.CALL_USER]: `The agent asks: ${e.question}`,
    [OUTCOME.STOPPED]: 'Stopped.',
    [OUTCOME.STEP_LIMIT]: `Stopped: ${e.error}.`,
    [OUTCOME.ERROR]: `Error: ${e.error}`,
  }[e.outcome];
}

/** The class list of an outcome's log entry. */
export function outcomeClass(outcome) {
  return outcome === OUTCOME.ERROR ? 'outcome error' : outcome === OUTCOME.CALL_USER ? 'outcome question' : 'outcome';
}

/**
 * What a task's requests used, summed from their usage entries
 * ({prompt_tokens, completion_tokens, estimated}), after steps steps.
 */
export function usageLine(used, steps) {
  const prompt = used.reduce((n, u) => n + (u.prompt_tokens || 0), 0);
  const completion = used.reduce((n, u) => n + (u.completion_tokens || 0), 0);
  const estimated = used.some((u) => u.estimated);
  return `${steps} step(s), ${used.length} request(s), ${estimated ? '≈' : ''}${prompt} prompt + ${estimated ? '≈' : ''}${completion} completion tokens${estimated ? ' (estimated: the server reported no usage)' : ''}`;
}

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
