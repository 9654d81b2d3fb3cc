// The approval window: one call the host asks the person about ("ask each
// time"). Shows the site, the capability and its exact arguments, counts down
// to the host's deadline, and answers through the worker. The URL carries only
// a token; the details come from the worker. Deny has the focus, so a stray
// Enter says no; Allow takes clicks only after the window has been seen for a
// moment. Closing the window is a No (the worker sees it close).
import { countdown } from '../core/approval.js';
import { titleOf } from '../core/grants.js';
import { hintBadges } from '../../shared/hint_badges.js';
import { BRIDGE } from '../../shared/core/messages.js';

const $ = (id) => document.getElementById(id);
/** How long Allow stays disabled after the window opens (ms). */
const ARMING_DELAY_MS = 700;

const token = new URLSearchParams(location.search).get('token') || '';
let answered = false;
let ticker = 0;

function send(type, extra = {}) {
  return chrome.runtime.sendMessage({ type, token, ...extra });
}

function gone(text) {
  $('approval').hidden = true;
  $('gone').hidden = false;
  if (text) $('gone').textContent = text;
}

function finish(text, kind) {
  answered = true;
  clearInterval(ticker);
  $('allow').disabled = true;
  $('deny').disabled = true;
  $('outcome').textContent = text;
  $('outcome').className = kind;
}

async function answer(allow) {
  if (answered) return;
  answered = true;
  $('allow').disabled = true;
  $('deny').disabled = true;
  const r = await send(BRIDGE.APPROVE, { allow });
  if (!r?.ok) {
    finish(`Could not answer: ${r?.error || 'no reply'}`, 'bad');
    return;
  }
  finish(allow ? 'Allowed once — running.' : 'Denied.', allow ? 'good' : 'bad');
  setTimeout(() => window.close(), 900);
}

function render(view) {
  const cap = { name: view.capability, title: view.title, annotations: view.annotations };
  document.title = `Gnosis — allow ${titleOf(cap)} for ${view.origin}?`;
  $('origin').textContent = view.origin;
  $('cap-title').textContent = titleOf(cap);
  $('cap-name').textContent = view.capability;
  $('cap-name').hidden = titleOf(cap) === view.capability;
  $('cap-badges').replaceChildren(...hintBadges(view.annotations));
  $('arguments').textContent = view.argumentsJson;
  const chars = view.argumentsJson.length;
  $('args-size').textContent = `${chars.toLocaleString()} character${chars === 1 ? '' : 's'}, shown in full`;
  $('approval').hidden = false;
  const tick = () => {
    const left = countdown(view.deadline, Date.now());
    $('countdown').textContent = left.seconds > 0 ? `Denied automatically in ${left.text}` : 'No answer in time — denied.';
    $('meter-fill').style.width = `${Math.min(100, (100 * Math.max(0, view.deadline - Date.now())) / view.timeoutMs)}%`;
    if (left.seconds === 0) finish('No answer in time — denied.', 'bad');
  };
  tick();
  ticker = setInterval(tick, 250);
  $('deny').focus();
  setTimeout(() => {
    if (!answered) $('allow').disabled = false;
  }, ARMING_DELAY_MS);
}

async function main() {
  $('deny').addEventListener('click', () => answer(false));
  $('allow').addEventListener('click', () => answer(true));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') answer(false);
    // Enter only ever activates the focused button; anywhere else it does nothing.
    if (e.key === 'Enter' && !(e.target instanceof HTMLButtonElement)) e.preventDefault();
  });
  const view = await send(BRIDGE.APPROVAL);
  if (!view?.ok) {
    gone();
    return;
  }
  if (view.answer) {
    render(view);
    finish(view.answer === 'allow' ? 'Allowed once — running.' : 'Denied.', view.answer === 'allow' ? 'good' : 'bad');
    return;
  }
  render(view);
  document.body.dataset.ready = 'true';
}

main();
