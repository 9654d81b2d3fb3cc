// The Side Panel's live log of the current task: an entry per step (what the
// model thought, did and got back), the retry card, the outcome, error cards
// that say how to fix what blocked a run, the status line and the step and
// token meter. Renders AgentSession events (core/agent_session.js); DOM glue.

import { formatMeter } from '../core/task_meter.js';
import { pageRelay } from './page_assistant_panel.js';
import { retryText } from '../../shared/core/ui.js';
import { panel, writesSettled } from './sidepanel_state.js';
import { show } from './sidepanel_views.js';
import { outcomeClass, outcomeText, usageLine } from '../core/sidepanel_outcome.js';
import { OUTCOME } from '../core/agent_session.js';

const $ = (id) => document.getElementById(id);
let stepEls = new Map(); // step number → its entry in the log

export function addEntry(cls, text) {
  const li = document.createElement('li');
  li.className = cls;
  if (text !== undefined) li.textContent = text;
  $('log').append(li);
  li.scrollIntoView({ block: 'end' });
  return li;
}

/** The next events start their steps' entries afresh. */
export function forgetSteps() {
  stepEls = new Map();
}

/** Empties the live log. */
export function clearLog() {
  forgetSteps();
  $('log').replaceChildren();
}

/** An error card for a run that validation refused (v from validateTask). */
export function blockedMessage(v) {
  pageRelay.blocked(v);
  const li = addEntry('error blocked', v.message);
  li.dataset.code = v.code;
  li.dataset.fix = v.fix;
  if (v.fix === 'settings') {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = 'Open settings';
    b.addEventListener('click', () => show('settings'));
    li.append(' ', b);
  }
}

export function setStatus(state, text) {
  if (state !== 'running') showRetry(null);
  $('status').dataset.state = state;
  $('status').textContent = text;
  const running = state === 'running';
  $('stop').disabled = !running && state !== 'waiting';
  $('run').disabled = running;
  $('run').textContent = state === 'waiting' ? 'Reply' : 'Run';
  $('task').placeholder = state === 'waiting' ? 'Answer the agent’s question…' : 'What should the agent do on the current tab?';
}

function stepEl(step) {
  let el = stepEls.get(step);
  if (!el) {
    el = addEntry('step');
    el.dataset.step = String(step);
    const head = document.createElement('div');
    head.className = 'head';
    head.textContent = `Step ${step}`;
    for (const c of ['think', 'action', 'result']) {
      const d = document.createElement('div');
      d.className = c;
      el.append(c === 'think' ? head : '', d);
    }
    stepEls.set(step, el);
  }
  return el;
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

/** Shows an AgentSession event (and passes it to the Page Assistant). */
export function onEvent(e) {
  pageRelay.event(e);
  if (e.type === 'delta' || e.type === 'action' || e.type === 'end' || e.type === 'result') showRetry(null);
  switch (e.type) {
    case 'attached':
      addEntry('info', `Controlling tab: ${e.target.title || ''} ${e.target.url}`);
      break;
    case 'step':
      showRetry(null);
      setStatus('running', e.phase === 'observe' ? `Step ${e.step}: taking a screenshot…`
        : e.phase === 'request' ? `Step ${e.step}: waiting for the model…` : `Step ${e.step}: acting…`);
      break;
    case 'delta': {
      const m = /<think>([\s\S]*?)(<\/think>|$)/.exec(e.text);
      stepEl(e.step).querySelector('.think').textContent = (m ? m[1] : e.text).trim().slice(0, 600);
      break;
    }
    case 'retry':
      setStatus('running', `Step ${e.step}: the model request failed; waiting to try again.`);
      showRetry({ reason: e.reason, attempt: e.attempt, until: Date.now() + e.delayMs });
      break;
    case 'parse_error':
      stepEl(e.step).querySelector('.result').textContent = `Unusable reply (${e.error}); asking the model again.`;
      break;
    case 'step_failed': {
      const r = stepEl(e.step).querySelector('.result');
      r.textContent = `Step failed: the model's reply could not be used: ${e.error}`;
      r.classList.add('failed');
      break;
    }
    case 'usage':
      panel.meter?.usage(e.usage);
      showMeter();
      break;
    case 'action': {
      panel.meter?.step();
      showMeter();
      const el = stepEl(e.step);
      el.querySelector('.think').textContent = e.think;
      el.querySelector('.action').textContent = e.actionText;
      el.dataset.action = e.action.name;
      break;
    }
    case 'result': {
      const r = stepEl(e.step).querySelector('.result');
      r.textContent = e.result;
      r.classList.toggle('failed', e.error);
      break;
    }
    case 'end':
      showOutcome(e);
      break;
    default:
  }
}

/** The task's outcome entry, with what its requests used; the panel is idle (or waiting for an answer) again. */
export function showOutcome(e) {
  pageRelay.outcome(e);
  const li = addEntry(outcomeClass(e.outcome), outcomeText(e));
  li.dataset.outcome = e.outcome;
  const used = e.compaction ? [] : panel.session?.usage || []; // a stopped compaction ran no step
  if (used.length) {
    const meter = document.createElement('div');
    meter.className = 'meter';
    meter.textContent = usageLine(used, panel.session.step);
    li.append(meter);
  }
  setStatus(e.outcome === OUTCOME.CALL_USER ? 'waiting' : 'idle', '');
  panel.bar?.setBusy(false);
  writesSettled().then(() => panel.bar?.refresh()).catch(() => {});
}

export function showMeter() {
  const el = $('meter');
  if (!panel.meter) { el.textContent = ''; return; }
  const m = panel.meter.snapshot();
  el.textContent = formatMeter(m);
  el.dataset.steps = String(m.steps);
  el.dataset.totalTokens = String(m.totalTokens);
  el.dataset.estimated = String(m.estimated);
}
