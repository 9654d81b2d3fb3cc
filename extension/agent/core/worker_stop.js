// When the browser stops the extension's service worker in the middle of a
// task (an update, memory pressure, a crash), the panel's message to it
// fails with the browser's own words ("A listener indicated an asynchronous
// response …, but the message channel closed before a response was
// received", "Could not establish connection. Receiving end does not
// exist."). Those are no words for a person: this names the step and the
// action that was cut short, and what the restarted worker did about it (it
// released the buttons and keys the action held and let go of the tab:
// shared/tab_held_input.js). Pure: no chrome.*.

import { CodedError } from '../../shared/core/coded_error.js';

/** The code of the error the panel raises when the worker stopped under it. */
export const WORKER_STOPPED = 'worker_stopped';

const GONE = [
  /message channel closed before a response was received/i,
  /receiving end does not exist/i,
  /message port closed before a response was received/i,
  /extension context invalidated/i,
];

/** Whether an error from runtime.sendMessage says the worker went away. */
export function isWorkerGone(err) {
  const text = String(err?.message || err || '');
  return GONE.some((re) => re.test(text));
}

const DOING = {
  attach: 'while taking over the tab',
  observe: 'while taking the screenshot',
  act: 'while acting',
};

/**
 * The sentence the panel shows and keeps for a task the worker's stop cut short.
 * @param {{phase?: string, step?: number, action?: string}} where action: the action as the log shows it
 */
export function interruptedText({ phase, step, action } = {}) {
  const at = Number.isInteger(step) && step > 0 ? `step ${step}` : 'the start of the task';
  const what = phase === 'act' && action ? ` (${action})` : '';
  const doing = DOING[phase] ? ` ${DOING[phase]}` : '';
  const after = phase === 'act'
    ? ' The action may have been done in part. Gnosis released the mouse buttons and keys it held and let go of the tab.'
    : ' Gnosis let go of the tab.';
  return `Interrupted at ${at}${what}${doing}: the browser stopped Gnosis's background worker.${after} Look at the page, then run the task again to go on.`;
}

/** The result of the step whose action the worker's stop cut short (the model reads it; the outcome says the rest). */
export const INTERRUPTED_RESULT = 'interrupted: the browser stopped Gnosis\'s background worker while this action ran; it may have been done in part';

/** The error the panel's browser bridge raises for a worker that went away. */
export function workerStopped(cause) {
  const err = new CodedError(WORKER_STOPPED, 'the browser stopped Gnosis\'s background worker');
  err.cause = cause;
  return err;
}
