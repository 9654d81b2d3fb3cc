// Settings → Desktop in the Side Panel: which desktop server and profile the
// agent uses (or why there is none), the agent's own grants for the
// profile's tools (Allow / Ask / Block each, the suggestion: Allow for a
// tool only the screenshot uses, Ask for every tool that acts), and the
// profile itself as JSON, checked by the worker against the tools' input
// schemas before it is saved (worker/desktop_worker.js).

import { DESKTOP } from '../../shared/core/messages.js';
import { refreshDesktop } from './desktop_panel.js';
import { $ } from '../../shared/page.js';

const send = (m) => chrome.runtime.sendMessage(m);
const LABELS = { allow: 'Allow', ask: 'Ask', deny: 'Block' };
let grants = null; // the last GET_GRANTS answer
let choices = {}; // capability -> decision shown

function segmented(name, value, onChange) {
  const group = document.createElement('div');
  group.className = 'segmented';
  group.setAttribute('role', 'radiogroup');
  group.setAttribute('aria-label', `Grant for ${name}`);
  for (const d of ['allow', 'ask', 'deny']) {
    const label = document.createElement('label');
    label.className = d;
    const input = document.createElement('input');
    input.type = 'radio';
    input.name = `desktop-grant-${name}`;
    input.value = d;
    input.checked = value === d;
    input.addEventListener('change', () => onChange(d));
    const span = document.createElement('span');
    span.textContent = LABELS[d];
    label.append(input, span);
    group.append(label);
  }
  return group;
}

function showGrants() {
  const list = $('desktop-grant-list');
  list.replaceChildren(...grants.tools.map((name) => {
    const li = document.createElement('li');
    const code = document.createElement('code');
    code.textContent = name;
    li.append(code, segmented(name, choices[name], (d) => { choices[name] = d; $('desktop-grants-state').textContent = 'Not saved yet.'; }));
    return li;
  }));
  $('desktop-grants-state').textContent = grants.configured
    ? 'Saved in the host\'s configuration for the agent.'
    : 'Nothing is granted yet: every desktop call is blocked until you save these.';
}

function showProfile(st) {
  if (document.activeElement === $('desktop-profile-json')) return;
  $('desktop-profile-prefix').value = st.prefix || '';
  $('desktop-profile-json').value = st.profile ? JSON.stringify({ keyFormat: st.profile.keyFormat, scrollAmount: st.profile.scrollAmount, actions: st.profile.actions }, null, 1) : '';
}

/** Reads the desktop's state and the agent's grants, and shows them. */
export async function loadDesktopSettings() {
  const st = await refreshDesktop();
  $('desktop-status').textContent = st.offered
    ? `Desktop server "${st.prefix}", profile: ${st.custom ? 'your own' : st.profile.name}.`
    : st.why;
  showProfile(st);
  $('desktop-grants').hidden = !st.offered;
  if (!st.offered) return;
  const g = await send({ type: DESKTOP.GET_GRANTS }).catch((err) => ({ ok: false, error: String(err?.message || err) }));
  if (!g?.ok || !g.offered) {
    $('desktop-grants-state').textContent = g?.error || g?.why || 'The agent\'s grants could not be read.';
    return;
  }
  grants = g;
  choices = Object.fromEntries(g.tools.map((name) => [name, g.configured ? (g.decisions[name] || 'deny') : g.suggested[name]]));
  showGrants();
}

async function saveGrants() {
  $('desktop-grants-state').textContent = 'Saving…';
  const r = await send({ type: DESKTOP.SET_GRANTS, grants: choices }).catch((err) => ({ ok: false, error: String(err?.message || err) }));
  $('desktop-grants-state').textContent = r?.ok ? 'Saved in the host\'s configuration for the agent.' : `Not saved: ${r?.error}`;
  if (r?.ok) grants = { ...grants, configured: true, decisions: r.decisions };
}

function problemsList(items, okText) {
  const ul = $('desktop-profile-problems');
  ul.replaceChildren(...(items.length ? items : [okText]).map((t) => {
    const li = document.createElement('li');
    li.textContent = t;
    if (!items.length) li.className = 'ok';
    return li;
  }));
}

async function saveProfile() {
  let parsed;
  try {
    parsed = JSON.parse($('desktop-profile-json').value);
  } catch (err) {
    problemsList([`not JSON: ${err.message}`]);
    return;
  }
  const profile = { id: 'custom', name: 'your own profile', ...parsed };
  const r = await send({ type: DESKTOP.CHECK_PROFILE, prefix: $('desktop-profile-prefix').value.trim(), profile, save: true })
    .catch((err) => ({ ok: false, error: String(err?.message || err) }));
  if (!r?.ok) return problemsList([r?.error || 'the profile could not be checked']);
  problemsList(r.problems, 'Saved: every action fits its tool\'s input schema.');
  if (!r.problems.length) await loadDesktopSettings();
}

async function resetProfile() {
  await send({ type: DESKTOP.CHECK_PROFILE, profile: null, save: true });
  problemsList([], 'The built-in profile is used again.');
  await loadDesktopSettings();
}

/** Wires Settings → Desktop; it is read again each time Settings opens. */
export function wireDesktopSettings() {
  $('show-settings').addEventListener('click', () => loadDesktopSettings().catch(() => {}));
  $('desktop-refresh').addEventListener('click', () => loadDesktopSettings().catch(() => {}));
  $('desktop-grants-suggested').addEventListener('click', () => {
    choices = { ...grants.suggested };
    showGrants();
    $('desktop-grants-state').textContent = 'The suggestion: not saved yet.';
  });
  $('desktop-grants-save').addEventListener('click', () => saveGrants().catch(() => {}));
  $('desktop-profile-save').addEventListener('click', () => saveProfile().catch(() => {}));
  $('desktop-profile-reset').addEventListener('click', () => resetProfile().catch(() => {}));
}
