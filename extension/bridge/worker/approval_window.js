// The approval window: when the host asks the person about a call, a popup
// opens beside the chat's window; the person's answer (or closing it) goes
// back to the host. An answer that allows may be remembered: for this
// session, or always on this site (remembered_choices.js); a choice remembered for
// the session answers the next question about that tool on that site without
// a window. Each question and its answer is noted on the call's activity
// entry (activity_log.js). The pending approvals themselves are core/approval.js's.
import { host } from '../../shared/host.js';
import { APPROVAL_BADGE, APPROVAL_WINDOW, PendingApprovals } from '../core/approval.js';
import { REMEMBER } from '../core/allow_choices.js';
import { approvalPlacements } from '../core/approval_place.js';
import { toolHints } from '../core/grants.js';
import { setLastEvent, showBadge } from './site_state.js';
import { hostError } from './host_queries.js';
import { callAsked } from './activity_log.js';
import { rememberAlways, rememberForSession, sessionChoice } from './remembered_choices.js';

export const approvals = new PendingApprovals();

/** Opens the approval window for a pending approval, unless a choice for this session answers it. */
export async function askPerson(token, origin, tabId, capability) {
  const pending = approvals.get(token);
  if (!pending) return;
  pending.activity = callAsked(pending);
  const auto = await sessionChoice(origin, capability);
  if (auto) {
    await answerApproval(token, true, { auto });
    return;
  }
  await showBadge(tabId, { ...APPROVAL_BADGE, title: `${APPROVAL_BADGE.title}: ${capability}` });
  await setLastEvent(origin, { kind: 'approval', capability });
  const win = await openWindow(token, tabId);
  if (!win) {
    // No window, no way to ask: the call is denied rather than left waiting.
    answerApproval(token, false);
    return;
  }
  if (approvals.get(token)) approvals.setWindow(token, win.id);
  else chrome.windows.remove(win.id).catch(() => {}); // the call ended while the window opened
}

/**
 * Opens the approval window somewhere over the chat's window a page cannot
 * predict (core/approval_place.js): the first place the browser accepts (it
 * refuses one mostly off the screen), else where the browser puts it.
 */
async function openWindow(token, tabId) {
  const base = {
    type: 'popup', url: chrome.runtime.getURL(`bridge/approval/approve.html?token=${token}`), focused: true,
    width: APPROVAL_WINDOW.width, height: APPROVAL_WINDOW.height,
  };
  for (const place of [...(await placesOverTab(tabId)), {}]) {
    try {
      return await chrome.windows.create({ ...base, ...place });
    } catch { /* off the screen: the next place */ }
  }
  return null;
}

async function placesOverTab(tabId) {
  try {
    const parent = await chrome.windows.get((await chrome.tabs.get(tabId)).windowId);
    return approvalPlacements(parent, APPROVAL_WINDOW, { cascade: 28 * (approvals.size - 1) });
  } catch {
    return [];
  }
}

/**
 * Records the person's answer, hands it to the host, and remembers an allow
 * for this session or always when asked to. "Always" for a destructive tool
 * needs confirmed: true (the window's second confirmation).
 * @param {string} token
 * @param {boolean} allow
 * @param {{remember?: string, confirmed?: boolean, auto?: {at: number, entry: string}}} [how]
 *   auto: the session choice that answered, when the person was not asked
 */
export async function answerApproval(token, allow, { remember = REMEMBER.ONCE, confirmed = false, auto = null } = {}) {
  const pending = approvals.get(token);
  if (!pending) return { ok: false, error: 'this call is no longer waiting for an answer' };
  const keep = allow && Object.values(REMEMBER).includes(remember) ? remember : REMEMBER.ONCE;
  if (keep === REMEMBER.ALWAYS && toolHints(pending.annotations).destructive && confirmed !== true) {
    return { ok: false, error: 'this tool may delete or overwrite things: confirm before allowing it always' };
  }
  const entry = approvals.answer(token, allow);
  if (!entry) return { ok: false, error: 'this call is no longer waiting for an answer' };
  const noted = entry.activity || {};
  Object.assign(noted, { answer: entry.answer, remember: keep, ...(auto ? { auto } : {}) });
  // Remembered before the call runs, so the entry says whether it was, and the next question finds it.
  let kept = { ok: true };
  if (entry.answer === 'allow' && !auto && keep === REMEMBER.SESSION) await rememberForSession(entry.origin, entry.capability, noted.entry);
  if (entry.answer === 'allow' && !auto && keep === REMEMBER.ALWAYS) kept = await rememberAlways(entry.origin, entry.capability, noted.entry);
  if (!kept.ok) noted.error = `could not save "always allow": ${kept.error}`;
  // A browser.* call waits here, not in the host (browser_calls.js): its entry takes the answer itself.
  const reply = entry.settle
    ? entry.settle(entry.answer === 'allow')
    : await host.request('approve', { id: entry.executeId, allow: entry.answer === 'allow' }, { timeoutMs: 10_000 });
  if (!reply.ok) return { ok: false, error: hostError(reply) };
  return { ok: true, found: !!reply.found, answer: entry.answer, remember: keep, ...(kept.ok ? {} : { rememberError: kept.error }) };
}

export function closeApproval(entry) {
  if (entry?.windowId != null) chrome.windows.remove(entry.windowId).catch(() => {});
}
