// The Side Panel's view of a task: it renders the task pipeline's events
// (core/task_pipeline.js) and nothing else decides what the log shows: an
// entry per step (what the model thought — folded when long — did and got
// back), the retry card, the outcome in its own colour with what the whole
// task used, error cards that say how to fix what blocked a run, the status
// line, the buttons' states and the step and token meter. The log keeps its
// latest entry in view unless the person scrolled up to read. DOM glue.

import { formatMeter } from '../core/task_meter.js';
import { pageRelay } from './page_assistant_panel.js';
import { retryText } from '../../shared/core/ui.js';
import { panel } from './sidepanel_state.js';
import { show } from './sidepanel_views.js';
import { outcomeClass, outcomeText, SETTINGS_ERRORS, usageLine, userText } from '../core/outcome_text.js';
import { OUTCOME } from '../core/agent_session.js';
import { TASK_STATE } from '../core/task_pipeline.js';
import { thinkingOf, truncateTail } from '../core/reply_text.js';
import { LONG_LINE, markSurface, setFoldable, thumbnails } from './conversation_view.js';
import { idlePlaceholder } from './surface_choice.js';
import { $ } from '../../shared/page.js';

let stepEls = new Map(); // step number → its entry in the log

/** True when the history shows its end (within a few pixels): new entries then keep it there. */
function atEnd() {
  const h = $('history');
  return h.scrollHeight - h.scrollTop - h.clientHeight < 24;
}

// The history follows its end until the person scrolls up to read, and again once they scroll back down.
let pinned = true;
let placedAt = -1; // the scrollTop scrollToEnd last set: its own scroll event is not the person's

/** Shows the latest entry (after it is complete: an outcome's usage line is part of it). */
export function scrollToEnd() {
  const h = $('history');
  h.scrollTop = h.scrollHeight;
  placedAt = h.scrollTop;
  pinned = true;
}

/**
 * Keeps the history at its end while it is pinned there: when the panel is
 * resized and when what it shows grows (thumbnails decoding, entries filled
 * in after they were added).
 */
export function followHistory() {
  const h = $('history');
  h.addEventListener('scroll', () => {
    if (Math.abs(h.scrollTop - placedAt) <= 1) return;
    pinned = atEnd();
  }, { passive: true });
  const follow = new ResizeObserver(() => { if (pinned) scrollToEnd(); });
  for (const el of [h, $('past'), $('log')]) follow.observe(el);
}

/** Changes the log through fn, keeping its end in view when it was in view. */
function keepingEnd(fn) {
  const follow = pinned || atEnd();
  const out = fn();
  if (follow) scrollToEnd();
  return out;
}

/** Adds an entry to the live log (composed by fill, if given) and keeps the end in view. */
export function addEntry(cls, text, fill) {
  return keepingEnd(() => {
    const li = document.createElement('li');
    li.className = cls;
    if (text !== undefined) li.textContent = text;
    fill?.(li);
    $('log').append(li);
    return li;
  });
}

/** Empties the live log. */
function clearLog() {
  stepEls = new Map();
  $('log').replaceChildren();
}

function settingsButton() {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'small';
  b.textContent = 'Open settings';
  b.addEventListener('click', () => show('settings'));
  return b;
}

/** An error card for a run that validation refused (v from validateTask). */
function blockedMessage(v) {
  pageRelay.blocked(v);
  addEntry('error blocked', v.message, (li) => {
    li.dataset.code = v.code;
    li.dataset.fix = v.fix;
    if (v.fix === 'settings') li.append(' ', settingsButton());
  });
}

/** Error cards whose cause the person has fixed since stay in the log, marked as no longer current. */
export function resolveBlocked(note) {
  for (const li of $('log').querySelectorAll('li.blocked:not(.resolved)')) {
    if (li.dataset.fix !== 'settings' && li.dataset.fix !== 'permission') continue;
    li.classList.remove('error');
    li.classList.add('resolved');
    li.querySelector('button')?.remove();
    const span = document.createElement('span');
    span.className = 'resolved-note';
    span.textContent = note;
    li.append(span);
  }
}

/** The status line under the log. */
function setStatusText(text) {
  $('status').textContent = text;
}

/** The status line in each state but running (where the steps say what happens). */
const STATE_TEXT = {
  [TASK_STATE.STARTING]: () => 'Starting…',
  [TASK_STATE.PAUSING]: () => 'Pausing: stopping the current step…',
  [TASK_STATE.PAUSED]: (step) => `Paused at step ${step || 1}: the page is yours. Act on it, then press Resume; the agent goes on from what it then sees.`,
};

/** The buttons, the task box and the status line for the pipeline's state. */
function showState(state, step) {
  if (state !== TASK_STATE.RUNNING && state !== TASK_STATE.STARTING) showRetry(null);
  $('status').dataset.state = state;
  if (state !== TASK_STATE.RUNNING) setStatusText(STATE_TEXT[state]?.(step) ?? '');
  const running = state === TASK_STATE.RUNNING || state === TASK_STATE.STARTING || state === TASK_STATE.PAUSING;
  const paused = state === TASK_STATE.PAUSED;
  const waiting = state === TASK_STATE.WAITING;
  $('stop').disabled = !(running || paused || waiting);
  $('run').disabled = running || paused;
  $('run').textContent = waiting ? 'Reply' : 'Run';
  $('pause').hidden = !(state === TASK_STATE.RUNNING || state === TASK_STATE.PAUSING || paused);
  $('pause').disabled = state === TASK_STATE.PAUSING;
  $('pause').textContent = paused ? 'Resume' : 'Pause';
  $('pause').classList.toggle('primary', paused);
  $('acted').hidden = !waiting;
  $('task').disabled = paused;
  $('task').placeholder = waiting ? 'Answer the agent’s question…' : paused ? 'Paused: act on the page, then Resume.' : idlePlaceholder();
  panel.bar?.setBusy(running || paused);
}

function stepEl(step) {
  let el = stepEls.get(step);
  if (!el) {
    el = addEntry('step', undefined, (li) => {
      li.dataset.step = String(step);
      const head = document.createElement('div');
      head.className = 'head';
      head.textContent = `Step ${step}`;
      li.append(head);
      for (const c of ['think', 'action', 'result']) {
        const d = document.createElement('div');
        d.className = c;
        li.append(d);
      }
    });
    stepEls.set(step, el);
  }
  return el;
}

/** Sets one line of a step's entry, keeping the end of the log in view. */
function stepLine(step, part, text, cls) {
  keepingEnd(() => {
    const d = stepEl(step).querySelector(`.${part}`);
    if (cls !== undefined) d.className = `${part} ${cls}`.trim();
    setFoldable(d, text, part === 'think' ? {} : LONG_LINE);
  });
}

/** The retry card: the failed request's reason and a countdown to the next try, with Stop. */
let retryTimer = 0;
function showRetry(retry) {
  clearInterval(retryTimer);
  retryTimer = 0;
  $('retry').hidden = !retry;
  if (!retry) return;
  const tick = () => { $('retry-text').textContent = retryText(retry, Date.now()); };
  tick();
  retryTimer = setInterval(tick, 250);
}

const STOPPED_IN = { attach: 'before the tab was taken over', observe: 'while taking the screenshot', request: 'while waiting for the model', act: 'while acting' };
/** The phases a pause gives the step back in (agent_session.js): Resume does that step again. */
const REDONE_IN = new Set(['observe', 'request']);
let cut = null; // {step, phase} of the step a pause cut before its action, until Resume

/** The outcome's entry, in its own colour, with what the whole task used. */
function showOutcome(e) {
  pageRelay.outcome(e);
  // The step that a Stop cut short says so on its own line.
  if (e.outcome === OUTCOME.STOPPED && e.step > 0 && STOPPED_IN[e.phase]) stepLine(e.step, 'result', `Stopped here, ${STOPPED_IN[e.phase]}.`, 'stopped');
  addEntry(outcomeClass(e.outcome), outcomeText(e), (li) => {
    li.dataset.outcome = e.outcome;
    if (e.code) li.dataset.code = e.code;
    if (e.outcome === OUTCOME.CALL_USER) {
      const hint = document.createElement('span');
      hint.className = 'hint';
      hint.textContent = 'Type your answer below and press Reply, or do it on the page yourself and press “I did it on the page”. Stop ends the task.';
      li.append(hint);
    }
    if (SETTINGS_ERRORS.includes(e.code)) li.append(' ', settingsButton());
    if (e.meter?.requests) {
      const meter = document.createElement('div');
      meter.className = 'meter';
      meter.textContent = usageLine(e.meter);
      li.append(meter);
    }
  });
}

/** The question a reopened conversation still waits on moves from the past records to the live log. */
function showRestoredQuestion(question) {
  $('past').querySelector(`li[data-seq="${question.seq}"]`)?.remove();
  showOutcome({ outcome: OUTCOME.CALL_USER, question: question.text });
}

function showMeter(m) {
  const el = $('meter');
  // Nothing to count yet (no request sent): no line of zeros.
  if (!m || (!m.requests && !m.steps)) {
    el.textContent = '';
    return;
  }
  el.textContent = formatMeter(m);
  el.dataset.steps = String(m.steps);
  el.dataset.totalTokens = String(m.totalTokens);
  el.dataset.estimated = String(m.estimated);
}

function showCompaction(e) {
  const est = e.estimated ? ', estimated' : '';
  if (e.phase === 'start') {
    setStatusText(e.where === 'before' ? `Compacting the conversation (the last request used ${e.tokens} prompt tokens${e.estimated ? ' (estimated)' : ''})…` : `Step ${e.step}: compacting the context (${e.tokens} prompt tokens${est})…`);
  } else if (e.phase === 'retry') {
    setStatusText(`Compacting: ${e.reason}; retrying…`);
  } else if (e.phase === 'done') {
    const li = addEntry('info compacted', e.where === 'before'
      ? `Compacted the earlier records into a summary (the last request used ${e.tokens} prompt tokens${e.estimated ? ' (estimated)' : ''}).`
      : `Compacted the earlier records into a summary inside this task (the next request would have been ${e.tokens} prompt tokens${est}).`);
    if (e.where === 'within') li.dataset.within = 'task';
  } else if (e.phase === 'failed') {
    addEntry('error', `Could not compact the ${e.where === 'before' ? 'conversation' : 'context'} (${e.error}); continuing with the latest rounds only.`);
  }
}

const STEP_STATUS = { observe: 'taking a screenshot…', request: 'waiting for the model…', act: 'acting…' };

/** Renders one pipeline event (and passes the run's to the Page Assistant). */
export function render(e) {
  if (['delta', 'action', 'end', 'result', 'paused'].includes(e.type)) showRetry(null);
  switch (e.type) {
    case 'opened':
      clearLog();
      break;
    case 'begin':
      pageRelay.begin(e.tabId, e.replying);
      break;
    case 'blocked':
      blockedMessage(e.v);
      break;
    case 'resolved':
      resolveBlocked('Resolved: the settings are complete now.');
      break;
    case 'submitted':
      if (!e.replying) stepEls = new Map();
      addEntry('user', userText(e.text, e.acted), (li) => {
        if (e.acted) li.dataset.acted = 'true';
        if (e.images.length) {
          li.dataset.images = String(e.images.length);
          li.append(thumbnails(e.images));
        }
      });
      $('task').value = '';
      break;
    case 'state':
      // The task box changes with the state (its buttons, the status line): the history keeps its end.
      keepingEnd(() => showState(e.state, e.step));
      break;
    case 'meter':
      keepingEnd(() => showMeter(e.meter));
      break;
    case 'compaction':
      showCompaction(e);
      break;
    case 'restored':
      showRestoredQuestion(e.question);
      break;
    case 'attached':
      pageRelay.event(e);
      addEntry('info', e.target.surface === 'desktop'
        ? `Working on the desktop, through the desktop server "${e.target.server}".`
        : `Controlling tab: ${e.target.title || ''} ${e.target.url}`);
      break;
    case 'step':
      pageRelay.event(e);
      showRetry(null);
      setStatusText(`Step ${e.step}: ${STEP_STATUS[e.phase] || 'working…'}`);
      break;
    case 'delta':
      pageRelay.event(e);
      // The newest part of the thinking while it streams; never a half-received tag.
      stepLine(e.step, 'think', truncateTail(thinkingOf(e.text), 600));
      break;
    case 'retry':
      pageRelay.event(e);
      setStatusText(`Step ${e.step}: the model request failed; waiting to try again.`);
      showRetry({ reason: e.reason, attempt: e.attempt, until: Date.now() + e.delayMs });
      break;
    case 'parse_error':
      stepLine(e.step, 'result', `Unusable reply (${e.error}); asking the model again.`);
      break;
    case 'step_failed':
      stepLine(e.step, 'result', `Step failed: the model's reply could not be used: ${e.error}`, 'failed');
      break;
    case 'action':
      pageRelay.event(e);
      stepLine(e.step, 'think', e.think);
      stepLine(e.step, 'action', e.actionText);
      stepEl(e.step).dataset.action = e.action.name;
      markSurface(stepEl(e.step), e.surface);
      break;
    case 'result':
      stepLine(e.step, 'result', e.result, e.error ? 'failed' : '');
      break;
    case 'paused':
      pageRelay.event(e);
      if (e.step > 0 && STOPPED_IN[e.phase]) stepLine(e.step, 'result', `Paused here, ${STOPPED_IN[e.phase]}.`, 'stopped');
      // A step paused before its action is done again after Resume, under the same number.
      cut = e.step > 0 && REDONE_IN.has(e.phase) ? { step: e.step, phase: e.phase } : null;
      addEntry('info paused', `Paused at step ${e.step || 1}. The page is yours until you press Resume.`);
      break;
    case 'resumed':
      pageRelay.event(e);
      if (cut && stepEls.has(cut.step)) {
        // The step cut short keeps its place and says it is done again; the redone one follows this entry.
        stepLine(cut.step, 'result', `Paused here, ${STOPPED_IN[cut.phase]}; done again below.`, 'stopped');
        stepEls.delete(cut.step);
      }
      cut = null;
      addEntry('info resumed', 'Resumed: the agent looks at the page again before its next step.');
      break;
    case 'end':
      showOutcome(e);
      break;
    case 'saving':
      document.body.dataset.saving = String(e.saving);
      break;
    case 'write_error':
      addEntry('error', e.what === 'screenshot' ? `Could not keep the screenshot: ${e.error}` : `Could not save to the conversation: ${e.error}`);
      break;
    case 'conversation_changed':
      panel.bar?.refresh();
      break;
    case 'failure':
      addEntry('error', `Could not run the task: ${e.error}`);
      pageRelay.error(`Could not run the task: ${e.error}`);
      break;
    default:
  }
}
