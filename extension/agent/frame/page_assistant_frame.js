// The Page Assistant's bar: an extension page the content script embeds in an
// iframe at the bottom of web pages (page/page_assistant.js). The task is typed
// here, in a document the page cannot script and whose key events never reach
// the page, and sent from here to the service worker (agent.pageTask, which
// accepts it only from this kind of sender and takes the tab from sender.tab).
//
// The run's events, the setting and the panel state arrive on this frame's
// runtime port (worker/page_assistant_worker.js), and only once this frame
// has handed the worker the one-time token its content script posted into it
// (page/page_assistant.js): a copy of this page that a web page embeds
// itself never gets one, so it stays blank and its tasks are refused. The
// state machine is core/page_assistant_state.js. Nothing here changes the
// iframe's size, so the page learns nothing of a submission from the layout.
//
// Clickjacking: IntersectionObserver v2 reports whether anything covers the
// bar or makes it translucent, and the intersection ratio whether the page
// crops it, shrinks it or pushes part of it off-screen; while any of these
// holds, the input takes no typing and Run is refused (the state machine
// decides; the bar says why).

import { cappedExponential } from '../../shared/core/backoff.js';
import { AGENT, PAGE_ASSISTANT, PAGE_ASSISTANT_EVENT, PORTS } from '../../shared/core/messages.js';
import * as S from '../core/page_assistant_state.js';

const $ = (selector) => document.querySelector(selector);
const ui = {
  bar: $('.bar'), title: $('.title'), status: $('.status'), stop: $('.stop'), pause: $('.pause'), dismiss: $('.dismiss'),
  text: $('.text'), acted: $('.acted'), composer: $('.composer'), input: $('.task'), where: $('.where'), go: $('.go'),
};

const HINT = 'Type a task for this page and press Enter. The page cannot see what you type here.';
const DESKTOP_HINT = 'Type a task for the desktop and press Enter. The page cannot see what you type here.';
/** Shown while a step has no reasoning to show yet. */
const WAITING = 'The agent’s reasoning for this step shows here as it comes in.';
/** The chip (shared/ui.css) each outcome's title wears: green for what worked, amber for a look, red for a failure. */
const OUTCOME_CHIP = { finished: 'connected', call_user: 'info', stopped: 'degraded', step_limit: 'degraded', error: 'down' };
/** Least share of the bar that must be on screen: anything less is a crop, a shrink or off-screen. */
const WHOLE = 0.99;
/** The text's tone class (shared/ui.css) per what it says. */
const TONE = { warning: 'tone-warn', error: 'tone-error', hint: 'muted' };

let state = S.initialState();
let draft = '';
// The first visibility report has come in (before it, the bar shows no "covered" notice).
let reported = false;
// Redraws a retry's countdown while one shows.
let ticker = 0;

const send = (message) => chrome.runtime.sendMessage(message).catch((err) => ({ ok: false, error: String(err?.message || err) }));

function mode(v) {
  if (v.status && v.showPause && v.pauseLabel === 'Resume') return 'paused';
  if (v.status) return 'running';
  if (v.card) return 'card';
  if (v.message) return 'message';
  return 'idle';
}

function render() {
  const v = S.view(state, Date.now());
  if (v.retrying && !ticker) ticker = setInterval(render, 250);
  else if (!v.retrying && ticker) {
    clearInterval(ticker);
    ticker = 0;
  }
  const guard = reported ? v.guard : '';
  const m = mode(v);
  // A "covered" notice needs a report about the bar as shown, not from before it was shown.
  if (!v.visible) reported = false;
  ui.bar.hidden = !v.visible;
  ui.bar.dataset.mode = m;
  ui.bar.dataset.retrying = String(v.retrying);
  ui.bar.dataset.covered = String(Boolean(guard));
  // Since when the bar shows whole (the visibility report's clock): a submit counts from MIN_SHOWN_MS after.
  ui.bar.dataset.shownSince = state.shownSince === null ? '' : String(state.shownSince);
  ui.bar.dataset.kind = v.card?.kind || '';
  ui.bar.dataset.outcome = v.card?.outcome || '';
  ui.title.textContent = m === 'card' ? v.card.title : '';
  ui.title.className = m === 'card' ? `title chip ${OUTCOME_CHIP[v.card.outcome] || ''}` : 'title';
  ui.status.textContent = v.status;
  ui.status.className = v.retrying ? 'status chip degraded' : 'status';
  ui.stop.hidden = !v.showStop;
  ui.stop.disabled = v.stopDisabled;
  ui.pause.hidden = !v.showPause;
  ui.pause.disabled = v.pauseDisabled;
  ui.pause.textContent = v.pauseLabel;
  ui.pause.classList.toggle('primary', v.pauseLabel === 'Resume');
  ui.acted.hidden = !v.showActed;
  ui.acted.disabled = v.locked;
  ui.dismiss.hidden = !(m === 'card' || m === 'message');
  let text = v.where === 'desktop' ? DESKTOP_HINT : HINT;
  if (m === 'running' || m === 'paused') text = v.summary || WAITING;
  else if (m === 'card') text = v.card.text;
  else if (m === 'message') text = v.message;
  ui.text.textContent = guard || text;
  const tone = guard ? 'warning' : m === 'message' ? 'error' : m === 'idle' || (m === 'running' && !v.summary) ? 'hint' : '';
  ui.text.dataset.tone = tone;
  ui.text.className = `text ${TONE[tone] || ''}`.trim();

  const wasHidden = ui.composer.hidden;
  ui.composer.hidden = !v.showInput;
  ui.input.placeholder = v.placeholder;
  ui.input.readOnly = v.locked;
  ui.go.disabled = v.locked;
  ui.where.disabled = v.locked;
  // Where the task starts: Desktop only while the worker says it is offered; its label and the title say why not.
  const desktop = ui.where.querySelector('option[value="desktop"]');
  desktop.disabled = !v.desktopOffered;
  desktop.textContent = v.desktopLabel;
  ui.where.title = v.whereTitle;
  ui.where.value = v.where;
  if (v.showInput && wasHidden) {
    // Back after a run: keep what was typed when the task could not start, clear after a run.
    ui.input.value = state.message && !state.card ? draft : '';
    draft = ui.input.value;
    if (document.hasFocus()) ui.input.focus();
  }
}

function dispatch(event) {
  const next = S.reduce(state, event);
  if (next === state) return;
  state = next;
  render();
}

async function submit(task = ui.input.value.trim(), { acted = false } = {}) {
  if (!task) return;
  const before = state;
  dispatch({ type: 'submit', at: performance.now() });
  if (state.phase !== 'pending' || before.phase !== 'idle') return;
  const r = await send(S.submission(before, task, { acted }));
  if (!r || r.ok === false) dispatch({ type: 'error', message: r?.error || 'the side panel did not answer' });
}

ui.input.addEventListener('input', () => { draft = ui.input.value; });
ui.where.addEventListener('change', () => dispatch({ type: 'where', surface: ui.where.value }));
// Belt and braces: a covered bar's input is read-only, and edits are refused too.
ui.input.addEventListener('beforeinput', (ev) => { if (S.view(state).locked) ev.preventDefault(); });
// Tasks start only from the user's own Enter or click. The page cannot reach
// this document at all; the checks also keep script-made events in it inert (a
// form's submit event is trusted even after requestSubmit(), so it is not used).
ui.composer.addEventListener('submit', (ev) => ev.preventDefault());
ui.input.addEventListener('keydown', (ev) => {
  if (ev.key !== 'Enter' || ev.isComposing) return;
  ev.preventDefault();
  if (ev.isTrusted) submit();
});
ui.go.addEventListener('click', (ev) => {
  if (ev.isTrusted) submit();
});
ui.stop.addEventListener('click', (ev) => {
  if (!ev.isTrusted) return;
  dispatch({ type: 'stop' });
  send({ type: AGENT.PAGE_STOP }).then((r) => { if (r?.ok === false) dispatch({ type: 'error', message: r.error }); });
});
ui.pause.addEventListener('click', (ev) => {
  if (!ev.isTrusted) return;
  const resuming = state.phase === 'paused';
  dispatch({ type: resuming ? 'resume' : 'pause' });
  send({ type: resuming ? AGENT.PAGE_RESUME : AGENT.PAGE_PAUSE }).then((r) => { if (r?.ok === false) dispatch({ type: 'error', message: r.error }); });
});
// The answer to the agent's question can be what the user did on the page.
ui.acted.addEventListener('click', (ev) => {
  if (ev.isTrusted && !S.view(state).locked) submit(S.ACTED_ANSWER, { acted: true });
});
ui.dismiss.addEventListener('click', (ev) => {
  if (ev.isTrusted) dispatch({ type: 'dismiss' });
});

// IntersectionObserver v2: isVisible is false while anything is drawn over the
// bar or an opacity, filter or transform (other than a move or an
// enlargement) applies to it or the iframe; the intersection ratio falls
// below 1 while the page crops the bar (overflow, clip) or part of it is off-screen.
const observer = new IntersectionObserver((entries) => {
  for (const e of entries) {
    if (e.isIntersecting) reported = true;
    const whole = e.intersectionRatio >= WHOLE;
    const visible = e.isVisible === true && whole;
    dispatch({ type: 'visibility', visible, why: e.isIntersecting && !whole ? 'cropped' : 'covered', at: e.time });
    render();
  }
}, { trackVisibility: true, delay: 100, threshold: [0, 0.25, 0.5, 0.75, WHOLE, 1] });
observer.observe(ui.bar);

// The token the content script posts into this frame (and only this frame):
// handed to the worker, it proves this is the bar Gnosis placed. A page can
// post junk here too, so a few tries are allowed; only the worker's token counts.
let token = null;
let claims = 0;
window.addEventListener('message', (ev) => {
  const m = ev.data;
  if (ev.source !== window.parent || m?.type !== PAGE_ASSISTANT.FRAME_TOKEN || typeof m.token !== 'string' || claims >= 8) return;
  claims += 1;
  token = m.token;
  claim();
});
let port = null;
function claim() {
  if (token && port) {
    try { port.postMessage({ type: PAGE_ASSISTANT.FRAME_TOKEN, token }); } catch { /* reconnecting */ }
  }
}

// The port to the worker: the setting, the panel state and this tab's run.
let attempt = 0;
function connect() {
  try {
    port = chrome.runtime.connect({ name: PORTS.PAGE_ASSISTANT_FRAME });
  } catch {
    gone();
    return;
  }
  claim();
  port.onMessage.addListener((m) => {
    attempt = 0;
    if (m?.type === PAGE_ASSISTANT_EVENT && m.event && typeof m.event.type === 'string') dispatch(m.event);
  });
  port.onDisconnect.addListener(() => {
    port = null;
    // The worker restarted: connect again (that wakes it). An extension that was reloaded or removed stays gone.
    if (!chrome.runtime?.id) {
      gone();
      return;
    }
    attempt += 1;
    setTimeout(connect, cappedExponential(attempt, 200, 10_000));
  });
}

function gone() {
  dispatch({ type: 'error', message: 'Gnosis was updated or removed; reload this page to use the assistant.' });
}

render();
connect();
