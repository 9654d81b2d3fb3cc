// The browser agent's entry in the activity log: when a task ends (finished,
// asking you, stopped, at its step limit, failed), the Side Panel hands its
// text, step count, outcome and conversation to the log the chat bridge's
// worker keeps (bridge/worker/activity_log.js), which redacts and stores it. A
// task that asked you and then went on keeps one entry (its conversation and
// task seq name it). Glue for the Side Panel, in shared/ because the agent
// may not import the bridge.
import { ACTIVITY } from './core/messages.js';

/**
 * Records one agent task's outcome; never throws, never waits.
 * @param {{conversation: string, seq?: number, task?: string, steps?: number,
 *   outcome: string, text?: string, url?: string}} task url: the page it ran on
 */
export function recordAgentTask({ conversation, seq, task, steps, outcome, text, url }) {
  try {
    chrome.runtime.sendMessage({ type: ACTIVITY.TASK, conversation, seq, task, steps, outcome, text, url })?.catch?.(() => {});
  } catch {
    // no extension runtime (a page opened outside the extension): nothing to record
  }
}
