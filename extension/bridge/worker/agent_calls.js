// The browser agent's own host calls (its desktop actions): the chat
// bridge's execute path (call_runner.js: grants, the approval window,
// progress, cancellation; activity_log.js: the log), judged under the
// extension's own origin, so the agent has its own grants, apart from every
// chat site's. The host asks about each of them; the approval window's
// worker half answers by the kind of the call (looking, pointing, typing:
// shared/core/desktop_kinds.js), which the agent read from the call's exact
// arguments, then by a choice remembered for that kind, else it asks the
// person. background.js hands runAgentCall to the agent's worker half,
// which may not import the bridge.
import { execute } from './call_runner.js';
import { recordCall } from './activity_log.js';

/** The origin the host judges the agent's calls under: the extension's own ("chrome-extension://<id>"). */
export function agentOrigin() {
  return chrome.runtime.getURL('').replace(/\/$/, '');
}

/**
 * Runs one of the agent's calls through the host and records it in the
 * activity log under its task.
 * @param {{capability: string, arguments: object}} call
 * @param {{signal?: AbortSignal, task?: string, tabId?: number, desktop?: object}} [o] task: the task's
 *   activity key (conversation:seq); tabId: the tab the approval window opens beside; desktop: what
 *   the call does and why ({kind, prefix, task, taskText, page, pageTitle, windowId})
 * @returns {Promise<object>} the host's reply ({ok, result} or {ok:false, code, message})
 */
export function runAgentCall(call, { signal, task, tabId, desktop } = {}) {
  const origin = agentOrigin();
  const extra = task ? { task: String(task).slice(0, 200), surface: 'desktop' } : { surface: 'desktop' };
  if (desktop?.kind) extra.desktopKind = desktop.kind;
  const context = desktop ? { ...desktop, call: { capability: call.capability, arguments: call.arguments } } : null;
  return recordCall(origin, call, () => execute(origin, tabId, call, { signal, desktop: context }), extra);
}
