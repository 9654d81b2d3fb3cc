// The options page's "What this site may run" table, built for servers with
// dozens of tools: one line per capability the host reports (its title, its
// exact name, its hint badges and an Allow / Ask / Block choice; the
// description behind a disclosure), grouped by what the tools say they do
// (bridge/core/grant_table.js) with a bulk choice per group, a filter over
// name, title and description, the tools the host cannot run shown disabled
// with its reason, and the host's report of clashing policy keys. Choices are
// saved in the host at once while the site is armed; otherwise Start saves them.
import { $, changes, send, state } from './options_page.js';
import { DECISIONS, DECISION_LABELS, DECISION_SHORT, initialChoices, setAll, summarize, titleOf } from '../core/grants.js';
import { clashView, groupCapabilities, groupSummary, matchesFilter, setEach, startsFolded, uniformDecision } from '../core/grant_table.js';
import { hintBadges } from '../../shared/hint_badges.js';
import { BRIDGE } from '../../shared/core/messages.js';
import { hostCapabilities } from './options_host.js';

let grantsLoading = false;
/** Groups the user folded or unfolded, by group id (kept across reloads of the table). */
const folded = new Map();

/** Asks the host what the origin may run and shows it. */
export async function loadGrants(origin) {
  grantsLoading = true;
  try {
    await readGrants(origin);
  } finally {
    grantsLoading = false;
  }
}

/** How many capabilities the host had when the table was read (as the Host section heard it). */
let readAtCount = null;

/**
 * Reads the table again when the host's tools changed since (a provider
 * that was still starting, or one added or removed), or when the table was
 * read before the worker knew the host's count (its first health still on
 * the way); a table still empty is asked for again until the host lists
 * something.
 */
export async function followCapabilities() {
  if (grantsLoading || !state.origin) return;
  const now = await hostCapabilities();
  const changed = now !== null && now !== readAtCount;
  if (changed || !state.grants?.capabilities.length) await loadGrants(state.origin);
}

async function readGrants(origin) {
  const count = await hostCapabilities({ wait: true });
  const r = await send(BRIDGE.GET_GRANTS, { origin });
  if (state.origin !== origin) return;
  if (!r.ok) {
    grantsNote(`Could not read what this site may run: ${r.error}`, 'error');
    return;
  }
  readAtCount = count;
  // Choices changed here and not saved yet are kept for the tools still listed.
  const before = state.grants?.origin === origin && state.grants.dirty ? state.grants.choices : {};
  const choices = initialChoices(r.capabilities, r);
  for (const name of Object.keys(choices)) if (name in before) choices[name] = before[name];
  const dirty = Object.keys(before).length > 0;
  state.grants = { origin, capabilities: r.capabilities, choices, configured: r.configured, clash: r.clash || null, dirty };
  renderGrants();
  if (r.clash) grantsNote('Not in force until saved: the host blocks every tool here (see above).', 'error');
  else if (dirty) grantsNote('Changed, not saved yet: Start saves these choices.');
  else grantsNote(r.configured ? `Saved in the host for ${origin}.` : 'Suggested choices, not saved yet: Start saves them.');
}

/** Empties the grants section (another origin, or none). */
export function clearGrants(note = '') {
  state.grants = null;
  $('grants-list').replaceChildren();
  $('grants-summary').textContent = '';
  showClash();
  applyFilter();
  grantsNote(note);
}

const el = (tag, className, text) => Object.assign(document.createElement(tag), className ? { className } : {}, text !== undefined ? { textContent: text } : {});

/** A capability's exact name, with visible edges. */
function nameChip(name) {
  return el('code', 'tool-name', name);
}

function renderGrants() {
  const g = state.grants;
  const groups = groupCapabilities(g.capabilities);
  $('grants-list').replaceChildren(...groups.map((group) => renderGroup(group)));
  if (!g.capabilities.length) $('grants-list').append(el('p', 'muted', 'The host reports no capabilities yet.'));
  showClash();
  showChoices();
  applyFilter();
  changes.dispatchEvent(new Event('grants'));
}

function renderGroup(group) {
  const section = el('section', 'grant-group');
  section.dataset.group = group.id;
  const rowsId = `group-${group.id}-rows`;
  const head = el('div', 'group-head');
  const toggle = el('button', 'group-toggle');
  toggle.type = 'button';
  toggle.id = `group-${group.id}-title`;
  toggle.setAttribute('aria-controls', rowsId);
  toggle.append(`${group.title} `, el('span', 'group-count', `(${group.capabilities.length})`));
  head.append(toggle);
  const rows = el('ul', 'grant-rows');
  // A group's bulk choice sets the rows it shows: all of them, or those the filter leaves.
  const shownNames = () => [...rows.querySelectorAll('li.grant:not([hidden])')].map((li) => li.dataset.name);
  if (group.id !== 'unavailable') {
    const set = el('div', 'group-set');
    set.setAttribute('role', 'group');
    set.setAttribute('aria-label', `Every ${group.title.toLowerCase()} tool`);
    for (const d of DECISIONS) {
      const b = el('button', '', DECISION_SHORT[d]);
      b.type = 'button';
      b.dataset.decision = d;
      b.setAttribute('aria-label', `${DECISION_SHORT[d]} every ${group.title.toLowerCase()} tool`);
      b.addEventListener('click', () => choose(setEach(shownNames(), d)));
      set.append(b);
    }
    head.append(set);
  }
  const meta = el('p', 'group-meta hint');
  meta.append(el('span', 'group-summary'), ` — ${group.hint}`);
  rows.id = rowsId;
  rows.append(...group.capabilities.map(renderRow));
  section.append(head, meta, rows);
  section.setAttribute('aria-labelledby', toggle.id);
  const open = () => !(folded.has(group.id) ? folded.get(group.id) : startsFolded(group));
  toggle.setAttribute('aria-expanded', String(open()));
  rows.hidden = !open();
  toggle.addEventListener('click', () => {
    folded.set(group.id, toggle.getAttribute('aria-expanded') === 'true');
    applyFilter();
  });
  section.folded = () => !open();
  return section;
}

let rowCount = 0;

/**
 * One tool's line: its title (a button that unfolds the description), its
 * exact name, its badges and the three-way choice on the right. The parts
 * wrap as the width needs.
 */
function renderRow(c) {
  const li = el('li', 'grant');
  li.dataset.name = c.name;
  const title = titleOf(c);
  const label = title === c.name ? c.name : `${title} (${c.name})`;
  const head = title === c.name ? nameChip(c.name) : el('span', 'grant-title', title);
  const n = rowCount++;
  const info = el('div', 'grant-info');
  const more = c.description ? el('div', 'grant-more', c.description) : null;
  if (more) {
    const button = el('button', 'disclose');
    button.type = 'button';
    button.setAttribute('aria-expanded', 'false');
    button.setAttribute('aria-controls', (more.id = `grant-more-${n}`));
    button.title = 'What it does';
    button.append(head);
    button.addEventListener('click', () => {
      const open = button.getAttribute('aria-expanded') !== 'true';
      button.setAttribute('aria-expanded', String(open));
      more.hidden = !open;
    });
    info.append(button);
  } else {
    const span = el('span', 'no-disclose');
    span.append(head);
    info.append(span);
  }
  if (title !== c.name) info.append(nameChip(c.name));
  const badges = el('ul', 'badges');
  badges.setAttribute('aria-label', 'What it says it does');
  badges.append(...hintBadges(c.annotations));
  info.append(badges);
  li.append(info);

  const group = el('div', 'segmented');
  group.setAttribute('role', 'radiogroup');
  group.setAttribute('aria-label', label);
  for (const d of DECISIONS) {
    const choice = el('label', d);
    const input = el('input');
    input.type = 'radio';
    input.name = `grant-${n}`;
    input.value = d;
    input.disabled = !!c.unavailable;
    input.setAttribute('aria-label', DECISION_LABELS[d]);
    input.addEventListener('change', () => choose({ [c.name]: d }));
    choice.append(input, el('span', '', DECISION_SHORT[d]));
    group.append(choice);
  }
  li.append(group);
  if (c.unavailable) {
    li.classList.add('unavailable');
    li.append(el('p', 'reason', `Cannot run here: ${c.unavailable}`));
  }
  if (more) {
    more.hidden = true;
    li.append(more);
  }
  return li;
}

/** Reflects state.grants.choices in the radios, the groups' headers and the summary. */
function showChoices() {
  const g = state.grants;
  for (const li of $('grants-list').querySelectorAll('li.grant')) {
    for (const input of li.querySelectorAll('input[type=radio]')) input.checked = g.choices[li.dataset.name] === input.value;
  }
  for (const section of $('grants-list').querySelectorAll('.grant-group')) {
    const names = [...section.querySelectorAll('li.grant')].map((li) => li.dataset.name);
    section.querySelector('.group-summary').textContent = groupSummary(g.choices, names);
    const same = uniformDecision(g.choices, names);
    for (const b of section.querySelectorAll('.group-set button')) b.setAttribute('aria-pressed', String(b.dataset.decision === same));
  }
  $('grants-summary').textContent = summarize(g.choices);
}

/**
 * Shows the rows that match the filter. While filtering, a group with a
 * match is unfolded and one without is hidden; with no filter each group
 * is as the user (or its size) left it.
 */
function applyFilter() {
  const query = $('grants-filter').value.trim();
  const caps = new Map((state.grants?.capabilities || []).map((c) => [c.name, c]));
  let shown = 0;
  for (const section of $('grants-list').querySelectorAll('.grant-group')) {
    let matches = 0;
    for (const li of section.querySelectorAll('li.grant')) {
      const hit = matchesFilter(caps.get(li.dataset.name), query);
      li.hidden = !hit;
      if (hit) matches++;
    }
    shown += matches;
    const total = section.querySelectorAll('li.grant').length;
    section.querySelector('.group-count').textContent = query ? `(${matches} of ${total})` : `(${total})`;
    const open = query ? matches > 0 : !section.folded();
    section.hidden = !!query && matches === 0;
    section.querySelector('.grant-rows').hidden = !open;
    section.querySelector('.group-toggle').setAttribute('aria-expanded', String(open));
  }
  const note = $('grants-filter-state');
  note.textContent = !query ? '' : shown ? `${shown} of ${caps.size} tools match.` : `No tool matches “${query}”.`;
  note.hidden = !query;
}

/** The host's report that this origin's policy keys clash, with what fixes it. */
function showClash() {
  const g = state.grants;
  const clash = g?.clash;
  $('grants-clash').hidden = !clash;
  if (!clash) return;
  const v = clashView(clash, g.origin);
  $('grants-clash-title').textContent = v.title;
  $('grants-clash-lead').textContent = v.lead;
  $('grants-clash-keys').replaceChildren(...v.keys.map((k) => {
    const li = el('li');
    li.append(nameChip(k));
    return li;
  }));
  $('grants-clash-fix').textContent = v.fix;
}

function grantsNote(text, kind = '') {
  $('grants-state').textContent = text;
  $('grants-state').className = kind || 'muted';
}

/** Marks the grants g as saved in the host and says so. */
export function grantsSaved(g) {
  g.configured = true;
  g.dirty = false;
  grantsNote(`Saved in the host for ${g.origin}.`);
  // A save writes one key for the origin: the host no longer reports a clash of its own keys.
  if (g.clash) loadGrants(g.origin);
}

/** Saves g's choices in the host now. */
async function saveNow(g) {
  grantsNote('Saving…');
  const r = await send(BRIDGE.SET_GRANTS, { origin: g.origin, grants: { ...g.choices } });
  if (state.grants !== g) return;
  if (r.ok) grantsSaved(g);
  else grantsNote(`Could not save: ${r.error}`, 'error');
}

/** Applies changed choices; while armed they are saved at once, otherwise Start saves them. */
async function choose(changed) {
  const g = state.grants;
  if (!g) return;
  Object.assign(g.choices, changed);
  showChoices();
  changes.dispatchEvent(new Event('grants'));
  if (!state.armed) {
    g.dirty = true;
    grantsNote('Changed, not saved yet: Start saves these choices.');
    return;
  }
  await saveNow(g);
}

/** Wires the filter, the quick buttons (Suggested, Ask for all, Block all) and the clash card's save. */
export function wireGrants() {
  $('grants-filter').addEventListener('input', applyFilter);
  $('grants-ask-all').addEventListener('click', () => state.grants && choose(setAll(state.grants.choices, 'ask')));
  $('grants-block-all').addEventListener('click', () => state.grants && choose(setAll(state.grants.choices, 'deny')));
  $('grants-suggested').addEventListener('click', () => state.grants && choose(initialChoices(state.grants.capabilities, { configured: false })));
  $('grants-clash-save').addEventListener('click', () => state.grants && saveNow(state.grants));
}
