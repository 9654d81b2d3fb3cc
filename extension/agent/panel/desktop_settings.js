// Settings → Desktop in the Side Panel: which desktop server and profile the
// agent uses (or why there is none), the agent's own grants for the
// profile's tools (shared/desktop_grants.js, the same view as the options
// page's Agent view), and the profile itself as JSON, checked by the worker
// against the tools' input schemas before it is saved
// (worker/desktop_worker.js).

import { refreshDesktop } from './desktop_panel.js';
import { link } from './worker_link.js';
import { desktopGrantsSaved } from './desktop_ask.js';
import { $ } from '../../shared/page.js';
import { createDesktopGrants } from '../../shared/desktop_grants.js';

let grants = null; // the shared grants view (shared/desktop_grants.js), once wired

function showProfile(st) {
  if (document.activeElement === $('desktop-profile-json')) return;
  $('desktop-profile-prefix').value = st.prefix || '';
  const p = st.profile;
  $('desktop-profile-json').value = p ? JSON.stringify({ keyFormat: p.keyFormat, scrollAmount: p.scrollAmount, typeChunk: p.typeChunk, scrollChunk: p.scrollChunk, actions: p.actions }, null, 1) : '';
}

/** Reads the desktop's state and the agent's grants, and shows them. */
export async function loadDesktopSettings() {
  const st = await refreshDesktop();
  $('desktop-status').textContent = st.offered
    ? `Desktop server "${st.prefix}", profile: ${st.custom ? 'your own' : st.profile.name}.`
    : st.why;
  showProfile(st);
  $('desktop-grants').hidden = !st.offered;
  if (st.offered) await grants.load();
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
  const r = await link.checkProfile({ prefix: $('desktop-profile-prefix').value.trim(), profile, save: true });
  if (!r?.ok) return problemsList([r?.error || 'the profile could not be checked']);
  problemsList(r.problems, 'Saved: every action fits its tool\'s input schema.');
  if (!r.problems.length) await loadDesktopSettings();
}

async function resetProfile() {
  await link.checkProfile({ profile: null, save: true });
  problemsList([], 'The built-in profile is used again.');
  await loadDesktopSettings();
}

/**
 * The desktop offer may have changed (the worker said so, panel_contract.js
 * desktopPush): the task box's choice follows, and Settings → Desktop too
 * while it shows (choices changed and not saved stay).
 */
export function followDesktop() {
  if ($('settings-view').hidden) return refreshDesktop();
  return loadDesktopSettings();
}

/**
 * Wires Settings → Desktop; it is read again each time Settings opens, and
 * while it shows, each time the desktop offer changes (followDesktop).
 */
export function wireDesktopSettings() {
  grants = createDesktopGrants({
    list: $('desktop-grant-list'), state: $('desktop-grants-state'), suggested: $('desktop-grants-suggested'), save: $('desktop-grants-save'), prefix: 'desktop-grant',
    // A task waiting for the desktop's grants (desktop_ask.js) goes on once they are saved here.
    onSaved: desktopGrantsSaved,
  });
  $('show-settings').addEventListener('click', () => loadDesktopSettings().catch(() => {}));
  $('desktop-refresh').addEventListener('click', () => loadDesktopSettings().catch(() => {}));
  $('desktop-profile-save').addEventListener('click', () => saveProfile().catch(() => {}));
  $('desktop-profile-reset').addEventListener('click', () => resetProfile().catch(() => {}));
}
