// The Page Assistant's UI state machine: what the bar at the bottom of a web
// page shows, as a pure function of what happened.
//
//   idle ──submit──▶ pending ──attached/step──▶ running(step summaries) ──end──▶ idle + card
//     ▲                │                             │
//     └──blocked/error─┘◀────────panel closed────────┘
//
// The bar is visible only while the setting is on AND a Side Panel is open in
// the tab's window (the agent loop lives in the panel, so a closed panel ends
// any run). A Finished or CallUser outcome leaves a dismissible result card; a
// stop, an error or the step limit leaves a notice; the input is always back
// after a run. After CallUser the next submit is a reply that continues the
// same task. A bar loaded while its tab's run goes on (the agent navigated)
// joins the run at the next relayed event.
//
// A failed model request that will be tried again ('retry') keeps its reason,
// attempt and the time of the next try: the bar counts down to it, with Stop,
// until the run moves on.
//
// Pause hands the tab to the user (the run stops its step and lets the tab
// go: 'paused'); Resume goes on ('resumed'); Stop ends the run either way. A
// question (CallUser) can be answered "I did it on the page".
//
// The bar takes input only while it is shown whole and nothing covers it: the
// frame reports what IntersectionObserver v2 sees ({type:'visibility',
// visible, why: 'covered'|'cropped', at}); while it is covered (a page can lay
// a transparent element over the bar to trick the user into typing or
// clicking), or cropped, scaled down, transformed or partly off-screen (a page
// can crop it to the bare input and write its own label above it), typing is
// locked and a submit is refused, and a submit is accepted only once the bar
// has been shown whole for MIN_SHOWN_MS.
//
// Where a task starts (This page / Desktop) is the bar's choice ('where');
// the desktop can be chosen only while the worker says it is offered
// ({type:'desktop', offered, why}: a desktop server with a screenshot tool);
// until then, and whenever it stops being offered, the choice is This page
// and the bar says why the desktop is not offered. Pure.
import { SUMMARY_MAX, thinkingOf, truncateHead, truncateTail } from './reply_text.js';
import { AGENT } from '../../shared/core/messages.js';

export { SUMMARY_MAX, thinkingOf, truncateHead, truncateTail };

/** How long the bar must have been shown whole before a submit counts, in ms. */
export const MIN_SHOWN_MS = 500;
/** Shown while something on the page covers the bar, or fades or distorts it. */
export const COVERED_MESSAGE = 'Paused: something on this page covers, fades or distorts the assistant.';
/** Shown while the page shows only part of the bar, or distorts it. */
export const CROPPED_MESSAGE = 'Paused: this page shows only part of the assistant (cropped or partly off-screen).';
/** Shown when a submit came while, or just after, the bar was covered or cropped. */
export const REFUSED_MESSAGE = 'Not sent: something on this page covered the assistant a moment ago. Check your task and press Enter again.';
/** Longest retry reason shown, in characters (the status is one line). */
export const REASON_MAX = 120;
/** What "I did it on the page" answers the agent's question with. */
export const ACTED_ANSWER = 'I did it on the page.';

/** Where the bar starts: hidden until the worker says the setting is on and a panel is open. */
export function initialState() {
  return { enabled: false, panelOpen: false, shownSince: null, hiddenWhy: 'covered', phase: 'idle', step: 0, stepPhase: '', summary: '', stopping: false, pausing: false, card: null, message: '', awaitingReply: false, retry: null, desktop: null, where: 'tab' };
}

const STEP_LABEL = { observe: 'taking a screenshot', request: 'thinking', act: 'acting' };
/** The step phase of a task waiting for the person's answer in the side panel (the desktop's grants). */
export const ASKING = 'ask';

/** The card an outcome leaves: Finished/CallUser are results, the rest notices. */
export function cardFor(e) {
  switch (e.outcome) {
    case 'finished': return { kind: 'result', outcome: e.outcome, title: 'Finished', text: e.answer || '(no answer given)' };
    case 'call_user': return { kind: 'result', outcome: e.outcome, title: 'The agent asks', text: e.question || '' };
    case 'stopped': return { kind: 'notice', outcome: e.outcome, title: 'Stopped', text: e.step > 0 ? `at step ${e.step}` : '' };
    case 'step_limit': return { kind: 'notice', outcome: e.outcome, title: 'Stopped', text: e.error || 'the step limit was reached' };
    default: return { kind: 'notice', outcome: 'error', title: 'Error', text: e.error || 'the task failed' };
  }
}

// A run event on an idle bar: the run is on, whatever the bar showed before.
// Any run event but 'retry' means the retried request got through (or the run moved on).
export function adopt(s) {
  return s.phase === 'idle' ? { ...s, card: null, message: '', summary: '', stopping: false, pausing: false, awaitingReply: false, retry: null } : { ...s, retry: null };
}

/** What a 'retry' event keeps: why the request failed, which attempt failed, when the next one starts (ms epoch). */
export function retryOf(e) {
  const attempt = Number.isInteger(e.attempt) && e.attempt > 0 ? e.attempt : 1;
  const until = Number.isFinite(e.until) ? e.until : 0;
  return { reason: truncateHead(e.reason || 'the model request failed', REASON_MAX), attempt, until };
}

/** "Retrying in 4s — HTTP 503 (attempt 2)": the countdown to the next try, which is attempt + 1. */
export function retryStatus(retry, now) {
  const left = Math.max(0, Math.ceil((retry.until - now) / 1000));
  return `${left > 0 ? `Retrying in ${left}s` : 'Retrying now'} — ${retry.reason} (attempt ${retry.attempt + 1})`;
}

/**
 * Applies one event; returns the next state (the input is never mutated).
 * Events: {type:'settings', enabled} {type:'panel', open} from the worker;
 * {type:'visibility', visible, why, at} {type:'submit', at} {type:'stop'}
 * {type:'pause'} {type:'resume'} {type:'dismiss'} from the bar (at: a
 * timestamp in ms); {type:'attached'|'step'|'delta'|'action'|'retry'|
 * 'paused'|'resumed'|'end'} (the agent session's events, relayed by the
 * panel; 'retry' carries reason, attempt and until), {type:'blocked',
 * message} and {type:'error', message}; {type:'desktop', offered, why} from
 * the worker and {type:'where', surface: 'tab'|'desktop'} from the bar's choice.
 */
export function reduce(state, e) {
  const s = { ...state };
  const busy = s.phase !== 'idle';
  switch (e?.type) {
    case 'settings':
      s.enabled = Boolean(e.enabled);
      if (!s.enabled) return { ...initialState(), panelOpen: s.panelOpen, shownSince: s.shownSince, desktop: s.desktop };
      return s;
    case 'panel':
      s.panelOpen = Boolean(e.open);
      // The loop lives in the panel: closing it ends the run without an 'end' event.
      if (!s.panelOpen && busy) return { ...s, phase: 'idle', stopping: false, pausing: false, summary: '', retry: null, awaitingReply: false, message: 'The side panel was closed, so the task stopped.' };
      if (!s.panelOpen) s.awaitingReply = false;
      return s;
    case 'visibility': {
      if (e.visible) return s.shownSince === null ? { ...s, shownSince: Number(e.at) || 0 } : state;
      const why = e.why === 'cropped' ? 'cropped' : 'covered';
      return s.shownSince === null && s.hiddenWhy === why ? state : { ...s, shownSince: null, hiddenWhy: why };
    }
    case 'submit':
      if (busy || !visible(s)) return state;
      if (!uncoveredAt(s, e.at)) return { ...s, message: REFUSED_MESSAGE };
      return { ...s, phase: 'pending', step: 0, stepPhase: '', summary: '', stopping: false, card: null, message: '', retry: null };
    // Run events reach only the tab whose bar started the run (the panel's
    // relay), so an idle bar that gets one was reloaded mid-run (the agent
    // navigated): it picks the run up.
    case 'attached':
      return { ...adopt(s), phase: 'running', awaitingReply: false };
    case 'step': {
      const r = adopt(s);
      if (e.step !== r.step) r.summary = '';
      return { ...r, phase: 'running', step: e.step, stepPhase: e.phase || '', awaitingReply: false };
    }
    case 'delta':
      return { ...adopt(s), phase: 'running', step: e.step, stepPhase: 'request', summary: truncateTail(thinkingOf(e.text)) };
    case 'action':
      return { ...adopt(s), phase: 'running', step: e.step, summary: truncateHead(e.think || '') };
    case 'retry': {
      const r = adopt(s);
      return { ...r, phase: 'running', step: Number.isInteger(e.step) ? e.step : r.step, stepPhase: 'retry', retry: retryOf(e) };
    }
    case 'stop':
      if (s.phase !== 'running' && s.phase !== 'paused') return state;
      return { ...s, stopping: true };
    case 'pause':
      if (s.phase !== 'running' || s.stopping) return state;
      return { ...s, pausing: true };
    case 'resume':
      if (s.phase !== 'paused' || s.stopping) return state;
      return { ...s, pausing: true };
    case 'paused':
      return { ...adopt(s), phase: 'paused', pausing: false, step: Number.isInteger(e.step) ? e.step : s.step, summary: '' };
    case 'resumed':
      return { ...adopt(s), phase: 'running', pausing: false, stepPhase: '', summary: '' };
    case 'end':
      return { ...s, phase: 'idle', stopping: false, pausing: false, summary: '', stepPhase: '', retry: null, card: cardFor(e), message: '', awaitingReply: e.outcome === 'call_user' };
    case 'blocked':
    case 'error':
      return { ...s, phase: 'idle', stopping: false, pausing: false, summary: '', stepPhase: '', retry: null, message: String(e.message || 'the task could not start') };
    case 'dismiss':
      return { ...s, card: null, message: '' };
    case 'desktop': {
      const desktop = { offered: e.offered === true, why: e.offered === true ? '' : String(e.why || '') };
      return { ...s, desktop, where: desktop.offered ? s.where : 'tab' };
    }
    case 'where':
      return { ...s, where: e.surface === 'desktop' && s.desktop?.offered ? 'desktop' : 'tab' };
    default:
      return state;
  }
}

/** True when the bar has been uncovered for at least MIN_SHOWN_MS at time `at`. */
export function uncoveredAt(s, at) {
  return s.shownSince !== null && Number.isFinite(at) && at - s.shownSince >= MIN_SHOWN_MS;
}

/** The bar is shown only while the setting is on and a Side Panel is open in this window. */
export function visible(s) {
  return s.enabled && s.panelOpen;
}

/**
 * What to draw at time `now` (ms epoch; a retry's countdown depends on it).
 * `retrying` is true while a countdown shows, so the frame redraws it as time passes.
 */
export function view(s, now = Date.now()) {
  const running = s.phase !== 'idle';
  const retrying = s.phase === 'running' && !s.stopping && Boolean(s.retry);
  let status = '';
  if (s.phase === 'pending') status = 'Starting…';
  else if (s.phase === 'paused') status = s.stopping ? 'Stopping…' : s.pausing ? 'Resuming…' : `Paused at step ${s.step || 1}`;
  else if (retrying) status = retryStatus(s.retry, now);
  else if (s.phase === 'running') {
    if (s.stopping) status = 'Stopping…';
    else if (s.pausing) status = 'Pausing…';
    else if (s.stepPhase === ASKING) status = 'Waiting for your answer in the side panel…';
    else status = s.step ? `Step ${s.step}: ${STEP_LABEL[s.stepPhase] || 'working'}…` : 'Starting…';
  }
  const covered = s.shownSince === null;
  return {
    visible: visible(s),
    showInput: !running,
    // Covered or cropped: the input takes no typing and Run is off (Stop stays: stopping is always safe).
    locked: covered,
    guard: covered ? (s.hiddenWhy === 'cropped' ? CROPPED_MESSAGE : COVERED_MESSAGE) : '',
    placeholder: s.awaitingReply ? 'Answer the agent’s question…' : s.where === 'desktop' ? 'Ask the agent to do something on the desktop…' : 'Ask the agent to do something on this page…',
    ...whereView(s),
    status,
    retrying,
    summary: s.phase === 'paused' ? 'The page is yours: act on it by hand, then press Resume and the agent goes on from what it then sees.'
      : running ? s.summary || (retrying ? `Step ${s.step || 1}: the model request failed; it is sent again when the countdown ends.` : '') : '',
    // Stop and Pause appear once the run has started: before that the panel has nothing to stop.
    showStop: s.phase === 'running' || s.phase === 'paused',
    stopDisabled: s.stopping,
    showPause: s.phase === 'running' || s.phase === 'paused',
    pauseLabel: s.phase === 'paused' ? 'Resume' : 'Pause',
    pauseDisabled: s.stopping || s.pausing,
    // A question may be answered by acting on the page instead of typing.
    showActed: !running && s.awaitingReply && s.card?.outcome === 'call_user',
    card: s.card,
    message: s.message,
  };
}

/** The desktop is not offered: what the bar's choice says of it, in a word and in full. */
export const DESKTOP_NOT_OFFERED = 'Desktop (not offered)';
/** The desktop's offer is not known yet (the worker has not answered). */
export const DESKTOP_CHECKING = 'Desktop (checking…)';

/**
 * The "where the task starts" choice: which is chosen, whether Desktop may
 * be, its label, and the choice's title (why the desktop is not offered).
 */
function whereView(s) {
  const offered = s.desktop?.offered === true;
  let desktopLabel = 'Desktop';
  let whereTitle = 'Where the task starts: this page, or the computer\'s desktop (through the host\'s desktop server)';
  if (!s.desktop) {
    desktopLabel = DESKTOP_CHECKING;
    whereTitle = 'Where the task starts. Gnosis is asking whether the desktop is offered.';
  } else if (!offered) {
    desktopLabel = DESKTOP_NOT_OFFERED;
    whereTitle = `Where the task starts. The desktop is not offered: ${s.desktop.why || 'no desktop server is set up.'}`;
  }
  return { where: s.where, desktopOffered: offered, desktopLabel, whereTitle };
}

/**
 * What a submit sends to the worker: a reply continues the task that asked;
 * acted marks the answer "I did it on the page"; surface is where a new task starts.
 */
export function submission(s, text, { acted = false } = {}) {
  return {
    type: AGENT.PAGE_TASK, task: String(text ?? ''), reply: Boolean(s.awaitingReply), ...(acted ? { acted: true } : {}),
    surface: s.where === 'desktop' && s.desktop?.offered ? 'desktop' : 'tab',
  };
}
