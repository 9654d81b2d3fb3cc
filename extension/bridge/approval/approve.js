// The approval window: one call the host asks the person about ("ask each
// time"). Shows the site, the tool (its name as one bounded token) and its
// exact arguments, counts down to the host's deadline, and answers through
// the worker: Deny, Allow once, Allow for this session, or Always allow on
// this site (a destructive tool asks a second time first). The URL carries
// only a token; the details come from the worker.
//
// Deny has the focus, so a stray Enter or Space says no, and Escape or
// closing the window denies too. An Allow button takes only a deliberate act
// (core/approval.js DeliberateAct): a pointer click once the window has been
// armed for a second (a click or key before then starts the wait again) and
// the pointer has moved inside it since the buttons showed and since the last
// press, or Enter/Space after the focused window has been quiet for 1.5 s;
// the button's own keyboard activation never runs. The confirmation's button
// never sits where the button that asked for it was.
import { DeliberateAct, countdown, rectsNear } from '../core/approval.js';
import { titleOf, toolHints } from '../core/grants.js';
import { REMEMBER } from '../core/allow_choices.js';
import { hintBadges } from '../../shared/hint_badges.js';
import { BRIDGE } from '../../shared/core/messages.js';
import { $, send as sendToWorker } from '../../shared/page.js';

const token = new URLSearchParams(location.search).get('token') || '';
const act = new DeliberateAct();
const ALLOW_BUTTONS = ['allow', 'allow-session', 'allow-always', 'confirm-always-yes'];
let answered = false;
let ticker = 0;
let armTimer = 0;
let armedIds = [];
let view = null;

/** Whether the call is the browser agent's own (its desktop actions come under the extension's origin). */
const byAgent = (v) => v?.origin === location.origin;

/** Sends a message about this window's call (its token) to the worker. */
function send(type, extra = {}) {
  return sendToWorker(type, { token, ...extra });
}

function gone(text) {
  $('approval').hidden = true;
  $('gone').hidden = false;
  if (text) $('gone').textContent = text;
}

function disableAll() {
  for (const b of document.querySelectorAll('button')) b.disabled = true;
}

function finish(text, kind) {
  answered = true;
  clearInterval(ticker);
  clearTimeout(armTimer);
  disableAll();
  $('key-hint').hidden = true;
  $('outcome').textContent = text;
  $('outcome').className = kind;
}

const ALLOWED_TEXT = {
  [REMEMBER.ONCE]: 'Allowed once — running.',
  [REMEMBER.SESSION]: 'Allowed for this session — running. This tool runs on this site without asking until you stop the site.',
  [REMEMBER.ALWAYS]: 'Always allowed on this site — running. Undo it in “What this site may run”.',
};

/** The browser agent has no site to stop: its session choices last until the browser restarts. */
const AGENT_SESSION_TEXT = 'Allowed for this session — running. The browser agent runs this tool without asking until the browser restarts.';

async function answer(allow, remember = REMEMBER.ONCE, confirmed = false) {
  if (answered) return;
  answered = true;
  disableAll();
  const r = await send(BRIDGE.APPROVE, { allow, remember, confirmed });
  if (!r?.ok) {
    finish(`Could not answer: ${r?.error || 'no reply'}`, 'bad');
    return;
  }
  if (r.answer !== 'allow') {
    finish('Denied.', 'bad');
  } else if (r.rememberError) {
    finish(`Allowed once — running. Could not save “always allow”: ${r.rememberError}`, 'bad');
    return; // stays open so the person can read why
  } else {
    const agentSession = byAgent(view) && r.remember === REMEMBER.SESSION;
    finish(agentSession ? AGENT_SESSION_TEXT : ALLOWED_TEXT[r.remember] || ALLOWED_TEXT.once, 'good');
  }
  setTimeout(() => window.close(), 1200);
}

/** Keeps the Allow buttons disabled until the window is armed (act.armMs after it was shown, or after the last press). */
function waitToArm() {
  for (const id of ALLOW_BUTTONS) $(id).disabled = true;
  clearTimeout(armTimer);
  armTimer = setTimeout(() => {
    if (!answered) for (const id of armedIds) $(id).disabled = false;
  }, act.armMs);
}

/** Shows a set of Allow buttons; they take clicks once the window has been armed. */
function arm(ids) {
  armedIds = ids;
  act.shown(Date.now());
  waitToArm();
}

/** A click or key anywhere in the window: before arming, the wait starts again. */
function pressed(now) {
  if (answered || !act.press(now)) return;
  waitToArm();
  hint('Clicks and keys this soon never allow a call: the buttons work a second after the last one.');
}

/**
 * Moves the confirmation's button off the spot of the button that asked for
 * it (rect, in the same layout): on the other side of its row, or its row
 * above the text, or both; else padding lifts the row clear.
 */
function keepApart(rect) {
  const box = $('confirm-always');
  const yes = $('confirm-always-yes');
  const clear = () => !rectsNear(yes.getBoundingClientRect(), rect);
  box.style.paddingBottom = '';
  for (const classes of [[], ['swapped'], ['lifted'], ['swapped', 'lifted']]) {
    box.classList.remove('swapped', 'lifted');
    box.classList.add(...classes);
    if (clear()) return;
  }
  box.style.paddingBottom = `${Math.ceil(yes.getBoundingClientRect().bottom - rect.top) + 12}px`;
}

/** Where the button that asked for the confirmation is in the layout as it is now. */
function askerRect() {
  const choices = $('choices');
  const was = choices.hidden;
  choices.hidden = false;
  $('confirm-always').hidden = true;
  const rect = $('allow-always').getBoundingClientRect();
  choices.hidden = was;
  $('confirm-always').hidden = false;
  return rect;
}

function showConfirm(on) {
  $('choices').hidden = on;
  $('confirm-always').hidden = !on;
  $('key-hint').hidden = true;
  if (on) {
    keepApart(askerRect());
    arm(['confirm-always-yes']);
    $('confirm-cancel').focus();
  } else {
    arm(['allow', 'allow-session', 'allow-always']);
    $('deny').focus();
  }
}

/** What an Allow button does once the act on it counted. */
function choose(button) {
  const remember = button.dataset.remember;
  if (remember === REMEMBER.ALWAYS && button.id === 'allow-always' && toolHints(view.annotations).destructive) {
    showConfirm(true);
    return;
  }
  answer(true, remember, button.id === 'confirm-always-yes');
}

function hint(text) {
  $('key-hint').textContent = text;
  $('key-hint').hidden = false;
}

function keyHint() {
  hint('Keys pressed this soon never allow a call. Click the button, or wait a moment and press Enter again.');
}

/**
 * When an event happened (epoch ms), not when it is handled: on a stalled
 * page the arming timer can fire before input queued behind it, and a press
 * made before the window armed must still count as too soon.
 */
const happenedAt = (e) => performance.timeOrigin + e.timeStamp;

/** The Allow button an event is on, if any. */
function allowButton(e) {
  const b = e.target instanceof Element ? e.target.closest('button[data-remember]') : null;
  return b && ALLOW_BUTTONS.includes(b.id) ? b : null;
}

function wire() {
  $('deny').addEventListener('click', () => answer(false));
  $('confirm-cancel').addEventListener('click', () => showConfirm(false));
  for (const id of ALLOW_BUTTONS) {
    $(id).addEventListener('click', (e) => {
      // Keyboard activation (detail 0) and synthetic clicks never allow; keys go through keydown below.
      if (!e.isTrusted || e.detail === 0 || answered) return;
      act.pointerAt(e.screenX, e.screenY);
      if (!act.pointerAllows(happenedAt(e))) {
        hint('A click from a pointer that has not moved never allows a call: move the pointer onto the button, then click.');
        return;
      }
      choose(e.currentTarget);
    });
  }
  const seen = (e) => act.pointerAt(e.screenX, e.screenY);
  for (const type of ['pointermove', 'pointerover', 'mousemove']) window.addEventListener(type, seen, true);
  for (const type of ['pointerdown', 'mousedown']) {
    window.addEventListener(type, (e) => {
      seen(e);
      if (e.isTrusted) pressed(happenedAt(e));
    }, true);
  }
  window.addEventListener('resize', () => { if (!$('confirm-always').hidden) keepApart(askerRect()); });
  window.addEventListener('focus', () => act.focus(Date.now()));
  window.addEventListener('blur', () => act.blur());
  document.addEventListener('keydown', (e) => {
    const now = happenedAt(e);
    if (e.isTrusted && e.key !== 'Escape') pressed(now);
    const button = allowButton(e);
    if (button && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      const ok = !button.disabled && !answered && act.keyAllows(e.key, now, e.repeat);
      act.keyDown(e.key, now);
      if (ok) choose(button);
      else keyHint();
      return;
    }
    act.keyDown(e.key, now);
    if (e.key === 'Escape') answer(false);
    // Enter only ever activates the focused button; anywhere else it does nothing.
    if (e.key === 'Enter' && !(e.target instanceof HTMLButtonElement)) e.preventDefault();
  }, true);
  document.addEventListener('keyup', (e) => {
    act.keyUp(e.key, happenedAt(e));
    if (allowButton(e) && (e.key === 'Enter' || e.key === ' ')) e.preventDefault();
  }, true);
}

function render(v) {
  view = v;
  const cap = { name: v.capability, title: v.title, annotations: v.annotations };
  // The browser agent's grants are set in the Side Panel's Settings, so "always" is not offered here.
  const agent = byAgent(v);
  const who = agent ? 'The browser agent (side panel)' : v.origin;
  document.title = `Gnosis — allow ${titleOf(cap)} for ${who}?`;
  $('origin').textContent = who;
  $('allow-always').hidden = agent;
  $('always-hint').hidden = agent;
  if (agent) $('session-hint').textContent = 'This session: until the browser restarts.';
  $('cap-title').textContent = titleOf(cap);
  $('cap-title').hidden = titleOf(cap) === v.capability;
  $('cap-name').textContent = v.capability;
  $('cap-badges').replaceChildren(...hintBadges(v.annotations));
  // What it acts on, when the call names it only by an id (a browser.* call's tab).
  $('subject').hidden = !v.subject;
  $('subject-text').textContent = v.subject || '';
  $('arguments').textContent = v.argumentsJson;
  const chars = v.argumentsJson.length;
  $('args-size').textContent = `${chars.toLocaleString()} character${chars === 1 ? '' : 's'}, shown in full`;
  $('confirm-text').textContent = `${titleOf(cap)} may delete or overwrite things. ${v.origin} will run it whenever its replies ask, with any arguments, without asking you. You can undo this in “What this site may run”.`;
  $('approval').hidden = false;
  const tick = () => {
    const left = countdown(v.deadline, Date.now());
    $('countdown').textContent = left.seconds > 0 ? `Denied automatically in ${left.text}` : 'No answer in time — denied.';
    $('meter-fill').style.width = `${Math.min(100, (100 * Math.max(0, v.deadline - Date.now())) / v.timeoutMs)}%`;
    if (left.seconds === 0) finish('No answer in time — denied.', 'bad');
  };
  tick();
  ticker = setInterval(tick, 250);
  $('deny').focus();
  if (document.hasFocus()) act.focus(Date.now());
}

async function main() {
  wire();
  const v = await send(BRIDGE.APPROVAL);
  if (!v?.ok) {
    gone();
    return;
  }
  render(v);
  if (v.answer) {
    finish(v.answer === 'allow' ? 'Allowed — running.' : 'Denied.', v.answer === 'allow' ? 'good' : 'bad');
    return;
  }
  arm(['allow', 'allow-session', 'allow-always']);
  document.body.dataset.ready = 'true';
}

main();
