// The options page's views: each tab in the app bar (a button with
// data-view naming a <main class="view">) shows its view and hides the
// others. With one view the switch is hidden (ui.css); a second view is one
// more button and one more <main>.
import { $ } from './options_page.js';

/** Wires the view switch. */
export function wireViews() {
  const tabs = [...document.querySelectorAll('.app-bar .tab[data-view]')];
  for (const tab of tabs) {
    tab.addEventListener('click', () => {
      for (const t of tabs) {
        t.setAttribute('aria-pressed', String(t === tab));
        $(t.dataset.view).hidden = t !== tab;
      }
    });
  }
}
