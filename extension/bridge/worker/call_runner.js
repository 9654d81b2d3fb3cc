// Running one call through the host: its time limit, its progress on the
// badge, the approval window when the host asks the person, and the calls in
// flight per origin so that stopping an origin aborts them. The extension's
// own browser.* calls take the same path up to the host's door, then run
// here instead (browser_calls.js).
import { host } from '../../shared/host.js';
import { makeTransportError } from '../../shared/native_client.js';
import { TRANSPORT_CODES } from '../../shared/core/codes.js';
import { METHODS } from '../../shared/core/methods.js';
import { transportReply } from '../core/result_format.js';
import { progressBadge } from '../core/badge.js';
import { setLastEvent, showBadge } from './site_state.js';
import { approvals, askPerson, closeApproval } from './approval_window.js';
import { executeLimitMs } from '../core/call_limit.js';
import { isBrowserCapability } from '../core/browser_tools.js';
import { runBrowserCall } from './browser_calls.js';

const inflight = new Map(); // origin -> Set<AbortController>

/** Aborts every call of origin still running. */
export function abortCalls(origin) {
  for (const ac of inflight.get(origin) || []) ac.abort();
  inflight.delete(origin);
}

/**
 * Runs one call through the host. When the host asks the person first (an
 * "approval" event), the approval window opens and the time the person takes
 * is added to the call's own time limit; the window closes and the pending
 * approval is forgotten when the call ends, however it ends. signal (the
 * agent's Stop) cancels the call through the host; desktop: what one of the
 * agent's desktop calls does (approval_window.js answers it by its kind).
 */
export async function execute(origin, tabId, call, { signal, desktop = null } = {}) {
  const ac = new AbortController();
  // The caller's own Stop (the agent's) cancels the call like stopping the origin does.
  if (signal?.aborted) ac.abort();
  signal?.addEventListener('abort', () => ac.abort(), { once: true });
  let timedOut = false;
  let timer = 0;
  const limit = (ms) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, ms);
  };
  const callMs = executeLimitMs(host.status().health);
  limit(callMs);
  const tokens = [];
  const onEvent = (event) => {
    if (event.event === 'progress') {
      showProgress(origin, tabId, call.capability, event);
      return;
    }
    if (event.event !== 'approval') return;
    const token = approvals.add(event, { tabId, desktop });
    tokens.push(token);
    limit(approvals.get(token).timeoutMs + callMs);
    askPerson(token, origin, tabId, call.capability);
  };
  if (!inflight.has(origin)) inflight.set(origin, new Set());
  inflight.get(origin).add(ac);
  try {
    if (isBrowserCapability(call.capability)) {
      return await runBrowserCall(origin, tabId, call, { signal: ac.signal, timedOut: () => timedOut, extendLimit: (ms) => limit(ms + callMs) });
    }
    return await host.request(METHODS.EXECUTE, { capability: call.capability, arguments: call.arguments, origin },
      { timeoutMs: 0, signal: ac.signal, onEvent });
  } catch (err) {
    const cause = timedOut ? makeTransportError(TRANSPORT_CODES.TIMEOUT, `execute timed out after ${callMs} ms`) : err;
    return transportReply(cause, call.capability);
  } finally {
    clearTimeout(timer);
    inflight.get(origin)?.delete(ac);
    // A window answered in it closes itself once it has said what happened; the others close now.
    for (const token of tokens) {
      const entry = approvals.forget(token);
      if (entry?.answer && entry.windowId != null) setTimeout(() => closeApproval(entry), 4000);
      else closeApproval(entry);
    }
  }
}

/** Shows a call's progress report on the tab's badge and in the options page's Last line. */
async function showProgress(origin, tabId, capability, event) {
  const p = { progress: event.progress, total: event.total, message: event.message };
  await showBadge(tabId, progressBadge(capability, p));
  await setLastEvent(origin, { kind: 'progress', capability, ...p });
}
