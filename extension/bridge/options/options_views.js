// The options page's views: each tab in the app bar (a button with
// data-view naming a <main class="view">, and data-hash for a view the
// address can open, e.g. #activity) shows its view and hides the others.
// The address is the one source: a click sets the hash, and the hash (on
// load, a link such as the toolbar menu's, Back) picks the view. The body's
// data-view names the view shown, for styles and for the views' own modules.
import { $ } from './options_page.js';

function tabs() {
  return [...document.querySelectorAll('.app-bar .tab[data-view]')];
}

/** Shows the view the address names (the first tab's when none does). */
function show() {
  const all = tabs();
  const chosen = all.find((t) => t.dataset.hash && t.dataset.hash === location.hash) || all[0];
  for (const t of all) {
    t.setAttribute('aria-pressed', String(t === chosen));
    $(t.dataset.view).hidden = t !== chosen;
  }
  document.body.dataset.view = chosen?.dataset.view || '';
  document.dispatchEvent(new CustomEvent('gnosis:view', { detail: document.body.dataset.view }));
}

/** Wires the view switch and shows the view the address names. */
export function wireViews() {
  for (const tab of tabs()) {
    tab.addEventListener('click', () => {
      const hash = tab.dataset.hash || '';
      if (location.hash === hash) return;
      if (hash) location.hash = hash;
      else history.pushState(null, '', location.pathname + location.search);
      show();
    });
  }
  window.addEventListener('hashchange', show);
  window.addEventListener('popstate', show);
  show();
}
