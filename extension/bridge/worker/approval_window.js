// The approval window: when the host asks the person about a call, a popup
// opens over the chat's window (the agent's: over its Side Panel's window) at
// a place no page can predict; the person's answer (or closing it) goes back
// to the host. An answer that allows may be remembered: for this session, or
// always on this site (remembered_choices.js); a choice remembered for the
// session answers the next question about that tool on that site without a
// window. The browser agent's desktop calls are answered by their kind
// instead (shared/core/desktop_kinds.js): the kind's grant, then a choice
// remembered for that kind (looking and pointing: this browser session;
// typing: the task that asked), else the window. Each question and its
// answer is noted on the call's activity entry (activity_log.js). The
// pending approvals themselves are core/approval.js's.
import { host } from '../../shared/host.js';
import { METHODS } from '../../shared/core/methods.js';
import { APPROVAL_BADGE, APPROVAL_WINDOW, PendingApprovals } from '../core/approval.js';
import { REMEMBER } from '../core/allow_choices.js';
import { approvalPlacements } from '../core/approval_place.js';
import { setLastEvent, showBadge } from './site_state.js';
import { hostError } from './host_queries.js';
import { callAsked } from './activity_log.js';
import { rememberAlways, rememberForSession, sessionChoice } from './remembered_choices.js';
import { REMEMBER_SCOPE, judgeDesktopCall } from '../../shared/core/desktop_kinds.js';
import { desktopChoices, kindGrantsOf, rememberDesktopChoice } from '../../shared/desktop_decisions.js';

export const approvals = new PendingApprovals();

/** Opens the approval window for a pending approval, unless a choice for this session answers it. */
export async function askPerson(token, origin, tabId, capability) {
  const pending = approvals.get(token);
  if (!pending) return;
  pending.activity = callAsked(pending);
  if (pending.desktop) {
    const d = pending.desktop;
    const verdict = judgeDesktopCall(d, { grants: await kindGrantsOf(d.prefix), choices: await desktopChoices() });
    if (verdict.answer !== 'ask') {
      const auto = verdict.by === 'grant' ? { grant: d.kind, at: Date.now() } : { at: verdict.choice.at, entry: verdict.choice.entry, kind: d.kind, scope: verdict.choice.scope };
      await answerApproval(token, verdict.answer === 'allow', { auto, confirmed: true });
      return;
    }
  } else {
    const auto = await sessionChoice(origin, capability);
    if (auto) {
      await answerApproval(token, true, { auto, confirmed: true });
      return;
    }
  }
  await showBadge(tabId, { ...APPROVAL_BADGE, title: `${APPROVAL_BADGE.title}: ${capability}` });
  await setLastEvent(origin, { kind: 'approval', capability });
  const win = await openWindow(token, tabId, pending.desktop?.windowId);
  if (!win) {
    // No window, no way to ask: the call is denied rather than left waiting.
    answerApproval(token, false);
    return;
  }
  if (approvals.get(token)) approvals.setWindow(token, win.id);
  else chrome.windows.remove(win.id).catch(() => {}); // the call ended while the window opened
}

/**
 * Opens the approval window somewhere over the chat's window (or, for the
 * agent's calls, which come from no tab, over its Side Panel's window) a
 * page cannot predict (core/approval_place.js): the first place the browser
 * accepts (it refuses one mostly off the screen), else where the browser
 * puts it.
 */
async function openWindow(token, tabId, windowId) {
  const base = {
    type: 'popup', url: chrome.runtime.getURL(`bridge/approval/approve.html?token=${token}`), focused: true,
    width: APPROVAL_WINDOW.width, height: APPROVAL_WINDOW.height,
  };
  for (const place of [...(await placesOver(tabId, windowId)), {}]) {
    try {
      return await chrome.windows.create({ ...base, ...place });
    } catch { /* off the screen: the next place */ }
  }
  return null;
}

/** The browser window the approval window opens over: the tab's, else the one named, else the last focused. */
async function parentWindow(tabId, windowId) {
  if (tabId != null) return chrome.windows.get((await chrome.tabs.get(tabId)).windowId);
  if (windowId != null) return chrome.windows.get(windowId);
  return chrome.windows.getLastFocused({ windowTypes: ['normal'] });
}

async function placesOver(tabId, windowId) {
  try {
    return approvalPlacements(await parentWindow(tabId, windowId), APPROVAL_WINDOW, { cascade: 28 * (approvals.size - 1) });
  } catch {
    return [];
  }
}

/**
 * Records the person's answer, hands it to the host, and remembers an allow
 * for this session or always when asked to. Every allow needs confirmed:
 * true, the window's second act (its confirmation); a deny needs nothing.
 * The agent's desktop calls are remembered by kind, never "always" (the
 * agent's grants are set in Settings), and a call of no known kind only once.
 * @param {string} token
 * @param {boolean} allow
 * @param {{remember?: string, confirmed?: boolean, auto?: object}} [how]
 *   auto: the grant or the remembered choice that answered, when the person was not asked
 */
export async function answerApproval(token, allow, { remember = REMEMBER.ONCE, confirmed = false, auto = null } = {}) {
  const pending = approvals.get(token);
  if (!pending) return { ok: false, error: 'this call is no longer waiting for an answer' };
  const keep = allow && Object.values(REMEMBER).includes(remember) ? remember : REMEMBER.ONCE;
  if (allow && confirmed !== true) return { ok: false, error: 'an allow takes the window\'s second step: confirm it' };
  const desktop = pending.desktop;
  if (desktop && keep === REMEMBER.ALWAYS) return { ok: false, error: 'the browser agent\'s grants are set in its Settings → Desktop, not here' };
  if (desktop && keep === REMEMBER.SESSION && !desktop.kind) return { ok: false, error: 'a call the desktop profile does not describe can only be allowed once' };
  const entry = approvals.answer(token, allow);
  if (!entry) return { ok: false, error: 'this call is no longer waiting for an answer' };
  const noted = entry.activity || {};
  Object.assign(noted, { answer: entry.answer, remember: keep, ...(auto ? { auto } : {}) });
  // Remembered before the call runs, so the entry says whether it was, and the next question finds it.
  let kept = { ok: true };
  if (entry.answer === 'allow' && !auto && keep === REMEMBER.SESSION) {
    if (desktop) await rememberDesktop(desktop, noted.entry);
    else await rememberForSession(entry.origin, entry.capability, noted.entry);
  }
  if (entry.answer === 'allow' && !auto && keep === REMEMBER.ALWAYS) kept = await rememberAlways(entry.origin, entry.capability, noted.entry);
  if (!kept.ok) noted.error = `could not save "always allow": ${kept.error}`;
  // A browser.* call waits here, not in the host (browser_calls.js): its entry takes the answer itself.
  const reply = entry.settle
    ? entry.settle(entry.answer === 'allow')
    : await host.request(METHODS.APPROVE, { id: entry.executeId, allow: entry.answer === 'allow' }, { timeoutMs: 10_000 });
  if (!reply.ok) return { ok: false, error: hostError(reply) };
  return { ok: true, found: !!reply.found, answer: entry.answer, remember: keep, ...(kept.ok ? {} : { rememberError: kept.error }) };
}

/** Remembers "allow this kind" from the window: looking and pointing for the browser session, typing for its task. */
function rememberDesktop(d, entry) {
  const scope = REMEMBER_SCOPE[d.kind];
  return rememberDesktopChoice({
    kind: d.kind, prefix: d.prefix, scope, at: Date.now(), entry,
    ...(scope === 'task' ? { task: d.task, taskText: d.taskText } : {}), page: d.page,
  });
}

export function closeApproval(entry) {
  if (entry?.windowId != null) chrome.windows.remove(entry.windowId).catch(() => {});
}
