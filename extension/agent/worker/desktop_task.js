// A task's desktop steps in the service worker: its screenshot and its
// actions (click, drag, type, keys, scroll, wait) as host calls of the
// desktop server's tools, through the profile the task moved to the desktop
// with (core/desktop_profiles.js, core/desktop_actions.js).
//
// Every call goes through the chat bridge's execute path (handed in by
// background.js, bridge/worker/agent_calls.js): the host judges it under the
// extension's own origin (the agent's grants), asks the person in the
// approval window when its grant is Ask, and the activity log records it
// under the task. What a call's reply means for the task:
// - refused (FORBIDDEN): an action's result says so, and the model reads it
//   in its next step; a refused screenshot is the panel's to handle
//   (core/desktop_surface.js: back to the tab, or the end);
// - the server went away (PROVIDER_UNAVAILABLE: killed, crashed): once per
//   request, the call waits for the host to start the server again (at most
//   RESTART_WAIT_MS) and is made once more; failing again ends the task with
//   the server's name and what the host says;
// - Stop (the session's desktop.abort): no further call starts, the one in
//   flight is cancelled through the host, so at most one piece of a long
//   Type or Scroll lands after it whatever the server does with a cancel.
// A session's desktop state is agent_sessions.js's (openSession: desktop).

import { host } from '../../shared/host.js';
import { CODES } from '../../shared/core/codes.js';
import { CodedError } from '../../shared/core/coded_error.js';
import { callsFor, screenshotFrom } from '../core/desktop_profiles.js';
import { kindOfCall } from '../core/desktop_call_kind.js';
import { planDesktopAction } from '../core/desktop_actions.js';
import { refusalText, refusedResult, serverFailureText, serverGone } from '../core/desktop_failures.js';
import { encodeScreenshot } from './desktop_image.js';
import { actionSleep, actionStopped } from '../../shared/core/cdp_input.js';

/** Longest wait for the host to start a desktop server again after it went away. */
export const RESTART_WAIT_MS = 15000;

/** A desktop request that failed in a way the panel tells apart by code (FORBIDDEN, PROVIDER_UNAVAILABLE, …). */
export class DesktopError extends CodedError {}

let runCall = null;
let restartWaitMs = RESTART_WAIT_MS;

/**
 * Sets the execute path the agent's desktop calls run on (bridge/worker/agent_calls.js
 * runAgentCall); restartWaitMs: how long a call waits for its server to come back.
 */
export function setDesktopRunner(run, { restartWaitMs: wait = RESTART_WAIT_MS } = {}) {
  runCall = run;
  restartWaitMs = wait;
}

/** The health entry of the provider with prefix, or null. */
async function providerOf(prefix) {
  const health = await host.health({ timeoutMs: 5000 }).catch(() => null);
  return (health?.providers || []).find((p) => p.prefix === prefix) || null;
}

/**
 * Resolves true once the host starts the provider with prefix again (a call
 * then waits for its start), false when it has not after timeoutMs; rejects
 * with actionStopped() when signal aborts. What counts is the host's event,
 * or its health saying 'starting': a 'ready' in the health right after a
 * failure may be the dead server's, not yet noticed. Only at the end is a
 * 'ready' taken (the restart's event may have come before this listened).
 */
function serverBack(prefix, signal, timeoutMs = restartWaitMs) {
  return new Promise((resolve, reject) => {
    const up = (state) => state === 'starting' || state === 'ready';
    let timer = 0;
    let off = () => {};
    let done = false;
    const finish = (fn, v) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      off();
      signal.removeEventListener('abort', onAbort);
      fn(v);
    };
    const onAbort = () => finish(reject, actionStopped());
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    off = host.on('provider.state', (e) => { if (e?.prefix === prefix && up(e.state)) finish(resolve, true); });
    timer = setTimeout(() => providerOf(prefix).then((p) => finish(resolve, up(p?.state))), timeoutMs);
    providerOf(prefix).then((p) => { if (p?.state === 'starting') finish(resolve, true); });
  });
}

/**
 * What the approval window and the kind grants need to know of a call: its
 * kind (from its exact arguments, core/desktop_call_kind.js), the server,
 * the task (its key and words), the page the task's tab shows and the
 * browser window of its Side Panel (where the window opens). tab: the
 * task's tab as chrome.tabs.get gave it, or null.
 */
function desktopContext(s, st, c, { task, taskText }, tab) {
  return {
    kind: kindOfCall(st.profile, st.prefix, c), prefix: st.prefix, task: task || '', taskText: taskText || '',
    page: tab?.url || '', pageTitle: tab?.title || '', windowId: s.windowId ?? null,
  };
}

/**
 * One request's host calls (a screenshot, an action's calls in turn), with
 * one retry after the server came back for the whole request; each call
 * carries its desktop context (desktopContext).
 * @param {object} s the session
 * @param {{prefix:string, profile:object}} st
 * @param {{task?:string, taskText?:string}} who the task's key and words
 * @param {AbortSignal} signal
 * @returns {{call:(c:{capability:string, arguments:object}) => Promise<{result?:object, refused?:object}>, restarted:() => boolean}}
 *   restarted: the server came back and the request went on
 */
function caller(s, st, who, signal) {
  let retried = false;
  let tab = null; // the task's tab, looked up once for all the request's calls (a long Type makes many)
  const send = async (c) => {
    if (signal.aborted) throw actionStopped();
    tab ||= s.tabId != null ? chrome.tabs.get(s.tabId).catch(() => null) : Promise.resolve(null);
    const reply = await runCall(c, { signal, task: who.task, desktop: desktopContext(s, st, c, who, await tab) });
    if (signal.aborted || reply.code === CODES.CANCELLED) throw actionStopped();
    return reply;
  };
  const failure = async (c, reply, how) => {
    const provider = await providerOf(c.capability.split('.')[0]);
    return new DesktopError(reply.code, serverFailureText({ capability: c.capability, reply, provider, retried: how }));
  };
  async function call(c) {
    let reply = await send(c);
    if (serverGone(reply) && !retried) {
      retried = true;
      if (!(await serverBack(c.capability.split('.')[0], signal))) throw await failure(c, reply, 'not-back');
      reply = await send(c);
      if (serverGone(reply)) throw await failure(c, reply, 'failed');
    }
    if (reply.ok) return { result: reply.result };
    if (reply.code === CODES.FORBIDDEN) return { refused: reply };
    if (reply.code === CODES.INVALID_ARGUMENTS) {
      throw new DesktopError(reply.code, `the host refused the arguments of ${c.capability}: ${reply.message}. The desktop profile does not fit the tool: fix it in the side panel's Settings → Desktop → Profile.`);
    }
    throw await failure(c, reply);
  }
  return { call, restarted: () => retried };
}

function toolErrorText(result) {
  return (result?.content || []).filter((p) => p?.type === 'text').map((p) => p.text).join(' ').replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** Runs fn with the session's desktop AbortController in place, so DESKTOP.STOP cancels it. */
async function withAbort(s, fn) {
  s.desktop.abort?.abort();
  const ac = new AbortController();
  s.desktop.abort = ac;
  try {
    return await fn(ac.signal);
  } finally {
    if (s.desktop.abort === ac) s.desktop.abort = null;
  }
}

const RESTARTED = 'The desktop server stopped and the host started it again before this step; what it showed before may have changed.';

/**
 * The desktop's screenshot for the session's next step.
 * @param {object} s the session (agent_sessions.js)
 * @param {{prefix:string, profile:object}} st the desktop the task moved to
 * @param {{task?:string, taskText?:string}} [who] the task's activity key and words
 * @throws {DesktopError} FORBIDDEN when the screenshot was refused
 */
export function observeDesktop(s, st, who = {}) {
  return withAbort(s, async (signal) => {
    const hostCalls = caller(s, st, who, signal);
    let result;
    for (const c of callsFor(st.profile, st.prefix, 'screenshot', {})) {
      const r = await hostCalls.call(c);
      if (r.refused) throw new DesktopError(CODES.FORBIDDEN, refusalText(c.capability, r.refused));
      result = r.result;
    }
    const shot = screenshotFrom(result, `${st.prefix} screenshot`);
    if (!shot.ok) throw new Error(shot.error);
    const img = await encodeScreenshot(shot.base64, shot.mime);
    s.desktop.shot = { width: img.width, height: img.height, sentWidth: img.sentWidth, sentHeight: img.sentHeight };
    return {
      image: img.image, mime: img.mime, surface: 'desktop',
      viewport: { width: img.sentWidth, height: img.sentHeight },
      desktop: { width: img.width, height: img.height, server: st.prefix },
      url: '', title: `Desktop (${st.prefix})`, notes: hostCalls.restarted() ? [RESTARTED] : [],
    };
  });
}

/**
 * One model action on the desktop: {text, error?} as the model reads it. A
 * refused call ends the action there (its result says so); no call starts
 * after a Stop.
 * @param {object} s the session
 * @param {{prefix:string, profile:object}} st
 * @param {{action:object, coordinateMode:string, task?:string, taskText?:string}} m
 */
export function actOnDesktop(s, st, m) {
  const plan = planDesktopAction(m.action, { profile: st.profile, prefix: st.prefix, shot: s.desktop.shot, coordinateMode: m.coordinateMode });
  if (plan.error) return Promise.resolve({ text: plan.error, error: true });
  return withAbort(s, async (signal) => {
    const hostCalls = caller(s, st, m, signal);
    for (const c of plan.calls) {
      const r = await hostCalls.call(c);
      if (r.refused) return { text: refusedResult(c.capability, r.refused), error: true };
      if (r.result?.isError) return { text: `${c.capability} failed: ${toolErrorText(r.result) || 'the tool reported an error'}`, error: true };
    }
    if (plan.waitMs) await actionSleep(plan.waitMs, signal);
    const again = hostCalls.restarted() ? ' (the desktop server had stopped; the host started it again and the action ran then)' : '';
    return { text: `${plan.text}${again}` };
  });
}

/** Stops the session's desktop call in flight (Stop, Pause, the panel closing). */
export function stopDesktop(s) {
  s?.desktop.abort?.abort();
}
