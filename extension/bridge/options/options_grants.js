// The options page's "What this site may run" table: one row per capability
// the host reports, with its hint badges and an allow / ask / block choice,
// the summary, the quick buttons, and saving the choices in the host (at
// once while the site is armed; otherwise Start saves them).
import { $, send, state } from './options_page.js';
import { DECISIONS, DECISION_LABELS, initialChoices, setAll, summarize, titleOf } from '../core/grants.js';
import { hintBadges } from '../../shared/hint_badges.js';
import { BRIDGE } from '../../shared/core/messages.js';

let grantsLoading = false;

/** Asks the host what the origin may run and shows it. */
export async function loadGrants(origin) {
  grantsLoading = true;
  try {
    await readGrants(origin);
  } finally {
    grantsLoading = false;
  }
}

/** A provider still starting lists no capabilities yet: asks again until it does. */
export async function retryEmptyGrants() {
  if (!grantsLoading && !state.grants?.capabilities.length && state.origin) await loadGrants(state.origin);
}

async function readGrants(origin) {
  const r = await send(BRIDGE.GET_GRANTS, { origin });
  if (state.origin !== origin) return;
  if (!r.ok) {
    grantsNote(`Could not read what this site may run: ${r.error}`, 'error');
    return;
  }
  state.grants = { origin, capabilities: r.capabilities, choices: initialChoices(r.capabilities, r), configured: r.configured };
  renderGrants();
  grantsNote(r.configured ? `Saved in the host for ${origin}.` : 'Suggested choices, not saved yet: Start saves them.');
}

/** Empties the grants section (another origin, or none). */
export function clearGrants(note = '') {
  state.grants = null;
  $('grants-list').replaceChildren();
  $('grants-summary').textContent = '';
  grantsNote(note);
}

function renderGrants() {
  const g = state.grants;
  $('grants-list').replaceChildren(...g.capabilities.map((c, i) => {
    const li = document.createElement('li');
    li.className = 'grant';
    li.dataset.name = c.name;
    const info = document.createElement('div');
    info.className = 'grant-info';
    const title = document.createElement('span');
    title.className = 'grant-title';
    title.textContent = titleOf(c);
    info.append(title);
    if (titleOf(c) !== c.name) {
      const name = document.createElement('code');
      name.textContent = c.name;
      info.append(' ', name);
    }
    const badges = document.createElement('ul');
    badges.className = 'badges';
    badges.append(...hintBadges(c.annotations));
    info.append(badges);
    if (c.description) {
      const desc = document.createElement('p');
      desc.className = 'grant-desc';
      desc.textContent = c.description;
      info.append(desc);
    }
    const group = document.createElement('div');
    group.className = 'segmented';
    group.setAttribute('role', 'radiogroup');
    group.setAttribute('aria-label', titleOf(c) === c.name ? c.name : `${titleOf(c)} (${c.name})`);
    for (const d of DECISIONS) {
      const label = document.createElement('label');
      label.className = d;
      const input = document.createElement('input');
      input.type = 'radio';
      input.name = `grant-${i}`;
      input.value = d;
      input.checked = g.choices[c.name] === d;
      input.addEventListener('change', () => choose({ [c.name]: d }));
      const text = document.createElement('span');
      text.textContent = DECISION_LABELS[d];
      label.append(input, text);
      group.append(label);
    }
    li.append(info, group);
    return li;
  }));
  if (!g.capabilities.length) $('grants-list').append(Object.assign(document.createElement('li'), { className: 'muted', textContent: 'The host reports no capabilities yet.' }));
  showChoices();
}

/** Reflects state.grants.choices in the radios and the summary. */
function showChoices() {
  const g = state.grants;
  for (const li of $('grants-list').querySelectorAll('li.grant')) {
    for (const input of li.querySelectorAll('input[type=radio]')) input.checked = g.choices[li.dataset.name] === input.value;
  }
  $('grants-summary').textContent = summarize(g.choices);
}

function grantsNote(text, kind = '') {
  $('grants-state').textContent = text;
  $('grants-state').className = kind || 'muted';
}

/** Marks the grants g as saved in the host and says so. */
export function grantsSaved(g) {
  g.configured = true;
  grantsNote(`Saved in the host for ${g.origin}.`);
}

/** Applies changed choices; while armed they are saved at once, otherwise Start saves them. */
async function choose(changes) {
  const g = state.grants;
  if (!g) return;
  Object.assign(g.choices, changes);
  showChoices();
  if (!state.armed) {
    grantsNote('Changed, not saved yet: Start saves these choices.');
    return;
  }
  grantsNote('Saving…');
  const r = await send(BRIDGE.SET_GRANTS, { origin: g.origin, grants: { ...g.choices } });
  if (state.grants !== g) return;
  if (r.ok) grantsSaved(g);
  else grantsNote(`Could not save: ${r.error}`, 'error');
}

/** Wires the quick buttons: Ask for all, Block all, Suggested. */
export function wireGrants() {
  $('grants-ask-all').addEventListener('click', () => state.grants && choose(setAll(state.grants.choices, 'ask')));
  $('grants-block-all').addEventListener('click', () => state.grants && choose(setAll(state.grants.choices, 'deny')));
  $('grants-suggested').addEventListener('click', () => state.grants && choose(initialChoices(state.grants.capabilities, { configured: false })));
}
