// The approval window: one call the host asks the person about ("ask each
// time"). Shows who asks, the tool (its name as one bounded token) and its
// exact arguments, counts down to the host's deadline, and answers through
// the worker: Deny, Allow once, Allow for this session, or Always allow on
// this site. For the browser agent's desktop calls it says in its own words
// that the call acts on the computer's desktop, what kind of act it is, and
// which task and tab led to it; nothing of what it says there comes from the
// desktop server. The URL carries only a token; the details come from the
// worker.
//
// Nothing a page can make someone do allows a call by chance:
//   - the buttons are scattered at random over the answer area, in a new
//     order and at new places in every window (core/approval_place.js
//     scatterButtons), and the window itself opens at a random place;
//   - every Allow takes two acts: the choice, then "Yes" at another random
//     place, never within its own size of the first button;
//   - a pointer click on an Allow button counts only once the window is
//     armed, the pointer has come into the window from outside, and it has
//     moved (core/approval.js DeliberateAct); a press that cannot allow uses
//     up that entry, and the second such press denies the call.
// Deny has the focus, so a stray Enter or Space says no, and Escape or
// closing the window denies too. Enter or Space on an Allow button counts
// only after the focused window has been quiet for 1.5 s; the button's own
// keyboard activation never runs.
import { DeliberateAct, countdown } from '../core/approval.js';
import { cryptoRandom, grown, scatterButtons, shuffled } from '../core/approval_place.js';
import { titleOf, toolHints } from '../core/grants.js';
import { REMEMBER } from '../core/allow_choices.js';
import { KIND_WORDS, REMEMBER_SCOPE, UNKNOWN_KIND_WORDS } from '../../shared/core/desktop_kinds.js';
import { hintBadges } from '../../shared/hint_badges.js';
import { BRIDGE } from '../../shared/core/messages.js';
import { $, send as sendToWorker } from '../../shared/page.js';

const token = new URLSearchParams(location.search).get('token') || '';
const act = new DeliberateAct();
const CHOICES = ['deny', 'allow', 'allow-session', 'allow-always'];
const CONFIRM = ['confirm-back', 'confirm-yes'];
const ALLOW_BUTTONS = ['allow', 'allow-session', 'allow-always', 'confirm-yes'];
let answered = false;
let ticker = 0;
let armTimer = 0;
let armedIds = [];
let view = null;
let step = 'choices';
let chosen = null; // {id, remember, rect}: the first act, while its confirmation shows

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

/** What the window says once the agent's kind was remembered. */
function agentRememberedText(kind) {
  const name = KIND_WORDS[kind].name;
  return REMEMBER_SCOPE[kind] === 'task'
    ? `Allowed for this task — running. ${name} on the desktop runs without asking until this task ends or leaves the desktop.`
    : `Allowed for this session — running. ${name} on the desktop runs without asking until the browser restarts, or until you forget it in Settings → Desktop.`;
}

async function answer(allow, remember = REMEMBER.ONCE, confirmed = false, deniedText = 'Denied.') {
  if (answered) return;
  answered = true;
  disableAll();
  if (!allow) finish(deniedText, 'bad'); // said at once: the window closes soon after
  const r = await send(BRIDGE.APPROVE, { allow, remember, confirmed });
  if (!r?.ok) {
    finish(`Could not answer: ${r?.error || 'no reply'}`, 'bad');
    return;
  }
  if (r.answer !== 'allow') {
    if ($('outcome').textContent !== deniedText) finish(deniedText, 'bad');
  } else if (r.rememberError) {
    finish(`Allowed once — running. Could not save “always allow”: ${r.rememberError}`, 'bad');
    return; // stays open so the person can read why
  } else {
    const kind = view?.desktop?.kind;
    const agentSession = byAgent(view) && r.remember === REMEMBER.SESSION && kind;
    finish(agentSession ? agentRememberedText(kind) : ALLOWED_TEXT[r.remember] || ALLOWED_TEXT.once, 'good');
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
  if (answered || !act.press(now)) return false;
  waitToArm();
  return true;
}

/**
 * The visible buttons of a step, scattered over the pad in a random order
 * (their tab order too). A button that had the focus keeps it: moving it in
 * the page would drop it, and a person at the keyboard would lose their place.
 */
function layout(ids, avoid = []) {
  const pad = $('pad');
  const focused = pad.contains(document.activeElement) ? document.activeElement : null;
  const shown = ids.filter((id) => !$(id).hidden);
  for (const id of shown) Object.assign($(id).style, { left: '0px', top: '0px' });
  const boxes = shown.map((id) => ({ id, width: $(id).offsetWidth, height: $(id).offsetHeight }));
  const at = scatterButtons({ width: pad.clientWidth, height: pad.clientHeight }, boxes, { avoid });
  for (const id of shuffled(shown)) {
    Object.assign($(id).style, { left: `${at[id].left}px`, top: `${at[id].top}px` });
    pad.append($(id));
  }
  if (focused && !focused.hidden) focused.focus({ preventScroll: true });
}

/** Where a button is in the window's viewport. */
function rectOf(id) {
  const r = $(id).getBoundingClientRect();
  return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height };
}

/** A rectangle of the viewport in the pad's coordinates as the pad is laid out now. */
function inPad(r) {
  const p = $('pad').getBoundingClientRect();
  return { left: r.left - p.left, top: r.top - p.top, right: r.right - p.left, bottom: r.bottom - p.top };
}

/** The second act's words for the choice made. */
function confirmWords(remember) {
  const cap = { name: view.capability, title: view.title, annotations: view.annotations };
  const d = view.desktop;
  if (d) {
    const words = d.kind ? KIND_WORDS[d.kind] : UNKNOWN_KIND_WORDS;
    if (remember === REMEMBER.SESSION) {
      const forTask = REMEMBER_SCOPE[d.kind] === 'task';
      return {
        title: forTask ? `Let the agent ${words.verb.replace(/ on your desktop$/, '')} without asking for the rest of this task?` : `Let the agent ${words.verb} without asking until the browser restarts?`,
        detail: forTask
          ? 'Any text the agent reads during this task — a web page’s included — could then choose what it types. It ends when the task ends or leaves the desktop.'
          : 'You can forget it at once in Settings → Desktop or on the options page’s Agent view. Typing is never remembered for longer than a task.',
        yes: forTask ? 'Yes, for this task' : 'Yes, for this session',
      };
    }
    return { title: 'Run this on your desktop once?', detail: `The agent would ${words.verb}, with exactly the arguments you read; Back shows them again.`, yes: 'Yes, run it once' };
  }
  const name = titleOf(cap);
  if (remember === REMEMBER.ALWAYS) {
    const destructive = toolHints(view.annotations).destructive;
    return {
      title: destructive ? 'Always allow a destructive tool?' : 'Always allow this tool on this site?',
      detail: `${destructive ? `${name} may delete or overwrite things. ` : ''}${view.origin} will run ${name} whenever its replies ask, with any arguments, without asking you. You can undo this in “What this site may run”.`,
      yes: 'Yes, always allow',
    };
  }
  if (remember === REMEMBER.SESSION) {
    return {
      title: 'Allow this tool on this site for this session?',
      detail: `${view.origin} will run ${name} whenever its replies ask, with any arguments, without asking you, until you stop the site or restart the browser.`,
      yes: 'Yes, for this session',
    };
  }
  return { title: `Run ${name} once?`, detail: 'With exactly the arguments you read; Back shows them again.', yes: 'Yes, run it once' };
}

/**
 * Shows the first step (the choices) or the second (the confirmation of the
 * choice made). The choices sit above or below the call's details, at
 * random; the confirmation hides the details and scatters Yes and Back over
 * the rest of the window.
 */
function showStep(next) {
  step = next;
  const confirm = next === 'confirm';
  $('details').hidden = confirm;
  $('pad').classList.toggle('whole', confirm);
  if (!confirm) {
    const top = cryptoRandom() < 0.5;
    if (top) $('approval').insertBefore($('pad'), $('details'));
    else $('approval').append($('pad'));
  } else {
    $('approval').append($('pad'));
  }
  $('choices-text').hidden = confirm;
  $('confirm-text').hidden = !confirm;
  $('key-hint').hidden = true;
  for (const id of CHOICES) $(id).hidden = confirm || $(id).dataset.off === 'true';
  for (const id of CONFIRM) $(id).hidden = !confirm;
  if (confirm) {
    const w = confirmWords(chosen.remember);
    $('confirm-title').textContent = w.title;
    $('confirm-detail').textContent = w.detail;
    // A short Yes: the smaller the button, the less a click made at a guessed spot finds it.
    $('confirm-yes').textContent = 'Yes';
    $('confirm-yes').setAttribute('aria-label', w.yes);
    // The second act is never where the first one was: Yes stays its own size away from that button.
    const yes = $('confirm-yes');
    layout(CONFIRM, [grown(inPad(chosen.rect), yes.offsetWidth || chosen.rect.width, yes.offsetHeight || chosen.rect.height)]);
    arm(['confirm-yes']);
    $('confirm-back').focus();
  } else {
    layout(CHOICES);
    arm(['allow', 'allow-session', 'allow-always']);
    $('deny').focus();
  }
}

/** What an Allow button does once the act on it counted. */
function choose(button) {
  if (button.id === 'confirm-yes') {
    answer(true, chosen.remember, true);
    return;
  }
  chosen = { id: button.id, remember: button.dataset.remember, rect: rectOf(button.id) };
  showStep('confirm');
}

function hint(text) {
  $('key-hint').textContent = text;
  $('key-hint').hidden = false;
}

function keyHint() {
  hint('Keys pressed this soon never allow a call. Click the button, or wait a moment and press Enter again.');
}

const WHY_NOT = {
  soon: 'Clicks and keys this soon never allow a call: the buttons work a second after they show and after the last click.',
  entry: 'Move the pointer out of this window and back in, then click: a click from a pointer that was already here, or that missed, never allows.',
  move: 'A click from a pointer that has not moved never allows a call: move the pointer onto the button, then click.',
  beside: 'That click was beside the buttons. Move the pointer out of this window and back in, then click a button.',
};

/** The second press that could not allow: the call is denied. */
const STRAYS_DENIED = 'Denied: two clicks landed where they could not allow — too soon, before the pointer came into this window, or beside the buttons. A page may have asked you to click. If you meant to allow the call, run it again.';

/**
 * When an event happened (epoch ms), not when it is handled: on a stalled
 * page the arming timer can fire before input queued behind it, and a press
 * made before the window armed must still count as too soon.
 */
const happenedAt = (e) => performance.timeOrigin + e.timeStamp;

/** The Allow button (or Yes) an event is on, if any. */
function allowButton(e) {
  const b = e.target instanceof Element ? e.target.closest('button') : null;
  return b && ALLOW_BUTTONS.includes(b.id) && !b.hidden ? b : null;
}

/** A trusted pointer press: before arming it restarts the wait; in the answer area (the whole window in the confirmation), one that cannot allow is a stray. */
function onPress(e) {
  if (!e.isTrusted || answered) return;
  const now = happenedAt(e);
  const b = e.target instanceof Element ? e.target.closest('button') : null;
  const allow = allowButton(e);
  const why = allow ? (allow.disabled ? 'soon' : act.pointerWhyNot(now)) : 'beside';
  pressed(now);
  const onAnswer = b && (b.id === 'deny' || b.id === 'confirm-back');
  // In the choices, a press on the details (reading, scrolling them) is no stray; in the
  // confirmation the details are hidden and only Yes or Back is an answer: any other press is one.
  const answerArea = step === 'confirm' || $('pad').contains(e.target);
  if (onAnswer || !answerArea || why === '') return;
  if (act.stray()) {
    answer(false, REMEMBER.ONCE, false, STRAYS_DENIED);
    return;
  }
  hint(WHY_NOT[why]);
}

function wire() {
  $('deny').addEventListener('click', () => answer(false));
  $('confirm-back').addEventListener('click', () => {
    chosen = null;
    showStep('choices');
  });
  for (const id of ALLOW_BUTTONS) {
    $(id).addEventListener('click', (e) => {
      // Keyboard activation (detail 0) and synthetic clicks never allow; keys go through keydown below.
      if (!e.isTrusted || e.detail === 0 || answered) return;
      act.pointerAt(e.screenX, e.screenY);
      if (!act.pointerAllows(happenedAt(e))) return; // the press already said why
      choose(e.currentTarget);
    });
  }
  const seen = (e) => act.pointerAt(e.screenX, e.screenY);
  for (const type of ['pointermove', 'pointerover', 'mousemove']) window.addEventListener(type, seen, true);
  // Coming in from outside the window (no related target) and leaving it.
  window.addEventListener('mouseover', (e) => {
    if (e.isTrusted && e.relatedTarget === null) act.came(e.clientX, e.clientY, window.innerWidth, window.innerHeight);
  }, true);
  document.documentElement.addEventListener('mouseleave', (e) => { if (e.isTrusted) act.left(); });
  window.addEventListener('pointerdown', (e) => {
    seen(e);
    onPress(e);
  }, true);
  window.addEventListener('resize', () => { if (!answered) relayout(); });
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

/** After a resize the buttons of the step showing are scattered again (and must be armed again). */
function relayout() {
  if (step === 'confirm') {
    const yes = $('confirm-yes');
    layout(CONFIRM, [grown(inPad(chosen.rect), yes.offsetWidth, yes.offsetHeight)]);
  } else {
    layout(CHOICES);
  }
}

/** The words of an agent's desktop call: what it does on the computer, and which task and tab led to it. */
function renderDesktop(v) {
  const d = v.desktop;
  const words = d.kind ? KIND_WORDS[d.kind] : UNKNOWN_KIND_WORDS;
  $('eyebrow').textContent = 'Gnosis · the browser agent asks first';
  // What it would type or where it would click comes right under these words; the tool's name after.
  $('details').classList.add('desktop-call');
  $('approval-title').textContent = 'Act on your computer’s desktop?';
  $('who-wants').textContent = `wants to ${words.verb}`;
  $('desktop-context').hidden = false;
  $('desktop-what').textContent = `This acts on your computer’s desktop, outside the browser: ${words.name.toLowerCase()}, through the desktop server “${d.prefix}”, on whatever window is there.${d.kind === 'type' ? ' Typed into a terminal, text can run commands.' : ''}`;
  $('desktop-task').textContent = d.taskText ? `“${d.taskText}”` : 'Not known: the task that asked gave no words.';
  $('desktop-page').textContent = d.page ? `${d.pageTitle ? `${d.pageTitle} — ` : ''}${d.page}` : 'None: the task has not opened a page.';
  // The tool's own title and hints are the desktop server's words: not shown here.
  $('cap-title').hidden = true;
  $('cap-badges').replaceChildren(...[`Acts on the desktop`, words.name].map((t) => {
    const li = document.createElement('li');
    li.className = 'badge destructive';
    li.textContent = t;
    return li;
  }));
  const session = $('allow-session');
  session.dataset.off = String(!d.kind);
  if (d.kind) session.textContent = REMEMBER_SCOPE[d.kind] === 'task' ? `Allow ${words.name.toLowerCase()} for this task` : `Allow ${words.name.toLowerCase()} for this session`;
  $('session-hint').textContent = !d.kind ? 'This call is not one the agent’s actions make: it can only be allowed once.'
    : REMEMBER_SCOPE[d.kind] === 'task' ? 'This task: until the task ends or leaves the desktop; typing is never remembered longer.'
      : 'This session: until the browser restarts, or until you forget it in Settings → Desktop.';
}

function render(v) {
  view = v;
  const cap = { name: v.capability, title: v.title, annotations: v.annotations };
  // The browser agent's grants are set in the Side Panel's Settings, so "always" is not offered here.
  const agent = byAgent(v);
  const who = agent ? 'The browser agent (side panel)' : v.origin;
  document.title = agent ? `Gnosis — let the browser agent act on your desktop (${v.capability})?` : `Gnosis — allow ${titleOf(cap)} for ${who}?`;
  $('origin').textContent = who;
  $('allow-always').dataset.off = String(agent);
  $('always-hint').hidden = agent;
  if (agent) $('session-hint').textContent = 'This session: until the browser restarts.';
  $('cap-title').textContent = titleOf(cap);
  $('cap-title').hidden = titleOf(cap) === v.capability;
  $('cap-name').textContent = v.capability;
  $('cap-badges').replaceChildren(...hintBadges(v.annotations));
  // What it acts on, when the call names it only by an id (a browser.* call's tab).
  $('subject').hidden = !v.subject;
  $('subject-text').textContent = v.subject || '';
  if (v.desktop) renderDesktop(v);
  $('arguments').textContent = v.argumentsJson;
  const chars = v.argumentsJson.length;
  $('args-size').textContent = `${chars.toLocaleString()} character${chars === 1 ? '' : 's'}, shown in full`;
  $('approval').hidden = false;
  const tick = () => {
    const left = countdown(v.deadline, Date.now());
    $('countdown').textContent = left.seconds > 0 ? `Denied automatically in ${left.text}` : 'No answer in time — denied.';
    $('meter-fill').style.width = `${Math.min(100, (100 * Math.max(0, v.deadline - Date.now())) / v.timeoutMs)}%`;
    if (left.seconds === 0) finish('No answer in time — denied.', 'bad');
  };
  tick();
  ticker = setInterval(tick, 250);
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
  showStep('choices');
  document.body.dataset.ready = 'true';
}

main();
