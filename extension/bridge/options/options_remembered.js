// "Remembered from approval windows", under "What this site may run": the
// tools the person allowed for this session or always from an approval
// window for the site being edited, and "Ask for everything again", which
// forgets them all (bridge/worker/remembered_choices.js). When a remembered choice
// changes the host's grants, the grants table is read again, so it never
// shows (or saves back) a choice that is no longer the host's.
import { state } from './options_page.js';
import { loadGrants } from './options_grants.js';
import { alwaysKey, sessionKey } from '../core/allow_choices.js';
import { BRIDGE } from '../../shared/core/messages.js';
import { $, send } from '../../shared/page.js';
import { pollWhileVisible } from '../../shared/core/poll.js';

let shownFor = null;

function names(list) {
  return list.map((c) => c.capability);
}

function code(text) {
  return Object.assign(document.createElement('code'), { className: 'cap', textContent: text });
}

/** A sentence naming each tool as a bounded token: "a, b and c". */
function tokens(list) {
  const out = [];
  list.forEach((n, i) => {
    if (i) out.push(i === list.length - 1 ? ' and ' : ', ');
    out.push(code(n));
  });
  return out;
}

async function render() {
  const box = $('grants-remembered');
  const origin = state.origin;
  shownFor = origin;
  if (!box || !origin) {
    if (box) box.hidden = true;
    return;
  }
  const r = await send(BRIDGE.REMEMBERED, { origin });
  if (state.origin !== origin) return;
  const session = r?.ok ? names(r.session) : [];
  const always = r?.ok ? names(r.always) : [];
  box.hidden = !session.length && !always.length;
  if (box.hidden) return;
  const p = (parts) => {
    const el = document.createElement('p');
    el.append(...parts);
    return el;
  };
  box.replaceChildren(
    p(['Remembered from approval windows for this site:']),
    ...(session.length ? [p(['For this session: ', ...tokens(session), '.'])] : []),
    ...(always.length ? [p(['Always (set to Allow above): ', ...tokens(always), '.'])] : []),
    Object.assign(document.createElement('div'), { className: 'row' }),
  );
  const row = box.lastElementChild;
  const button = Object.assign(document.createElement('button'), { type: 'button', id: 'forget-choices', textContent: 'Ask for everything again' });
  const note = Object.assign(document.createElement('span'), { id: 'forget-state', className: 'muted' });
  note.setAttribute('role', 'status');
  button.addEventListener('click', () => forget(origin, button, note));
  row.append(button, note);
}

async function forget(origin, button, note) {
  button.disabled = true;
  const r = await send(BRIDGE.FORGET_CHOICES, { origin });
  if (!r?.ok) {
    note.textContent = `Could not forget them: ${r?.error || 'no reply'}`;
    button.disabled = false;
    return;
  }
  if (state.origin === origin) await loadGrants(origin);
  await render();
}

function main() {
  chrome.storage.onChanged.addListener((changes) => {
    const keys = Object.keys(changes);
    const origin = state.origin;
    if (!origin) return;
    if (keys.includes(sessionKey(origin)) || keys.includes(alwaysKey(origin))) {
      // The worker keeps "always" notes in its trusted store and signals each change under alwaysKey in storage.session.
      if (keys.includes(alwaysKey(origin))) loadGrants(origin);
      render();
    }
  });
  // The site being edited changes (the saved-pages list, the first load): show its choices.
  pollWhileVisible(() => {
    if (state.origin !== shownFor) render();
  }, 500);
}

main();
