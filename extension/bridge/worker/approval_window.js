// The approval window: when the host asks the person about a call, a popup
// opens beside the chat's window; the person's answer (or closing it) goes
// back to the host. The pending approvals themselves are core/approval.js's.
import { host } from '../../shared/host.js';
import { APPROVAL_BADGE, APPROVAL_WINDOW, PendingApprovals } from '../core/approval.js';
import { setLastEvent, showBadge } from './site_state.js';
import { hostError } from './host_queries.js';

export const approvals = new PendingApprovals();

/** Opens the approval window for a pending approval and shows that the bridge waits for the person. */
export async function askPerson(token, origin, tabId, capability) {
  await showBadge(tabId, { ...APPROVAL_BADGE, title: `${APPROVAL_BADGE.title}: ${capability}` });
  await setLastEvent(origin, { kind: 'approval', capability });
  let win;
  try {
    win = await chrome.windows.create({
      type: 'popup', url: chrome.runtime.getURL(`bridge/approval/approve.html?token=${token}`), focused: true,
      width: APPROVAL_WINDOW.width, height: APPROVAL_WINDOW.height, ...(await besideTab(tabId)),
    });
  } catch {
    // No window, no way to ask: the call is denied rather than left waiting.
    answerApproval(token, false);
    return;
  }
  if (approvals.get(token)) approvals.setWindow(token, win.id);
  else chrome.windows.remove(win.id).catch(() => {}); // the call ended while the window opened
}

/** Where the approval window goes: centred over the chat's window, cascaded when several wait. */
async function besideTab(tabId) {
  try {
    const parent = await chrome.windows.get((await chrome.tabs.get(tabId)).windowId);
    const step = 28 * (approvals.size - 1);
    return {
      left: Math.max(0, Math.round(parent.left + (parent.width - APPROVAL_WINDOW.width) / 2) + step),
      top: Math.max(0, Math.round(parent.top + (parent.height - APPROVAL_WINDOW.height) / 3) + step),
    };
  } catch {
    return {};
  }
}

/** Records the person's answer and hands it to the host. */
export async function answerApproval(token, allow) {
  const entry = approvals.answer(token, allow);
  if (!entry) return { ok: false, error: 'this call is no longer waiting for an answer' };
  const reply = await host.request('approve', { id: entry.executeId, allow: entry.answer === 'allow' }, { timeoutMs: 10_000 });
  if (!reply.ok) return { ok: false, error: hostError(reply) };
  return { ok: true, found: !!reply.found, answer: entry.answer };
}

export function closeApproval(entry) {
  if (entry?.windowId != null) chrome.windows.remove(entry.windowId).catch(() => {});
}
