// The options page's Agent view (#agent): what the side-panel agent may run
// on the desktop. The agent's desktop calls are judged by the host under the
// extension's own origin; this view shows those grants with the same view
// and the same worker logic as the side panel's Settings → Desktop
// (shared/desktop_grants.js over agent/worker/desktop_worker.js), so both
// places show the same decisions. When no desktop server fits, it says why
// and links the setup page. It follows the host while it shows: the host's
// cached health (tool count, providers' states) is read each second and the
// grants read again when it changed. Where the agent cannot run (Firefox),
// the view's tab is hidden.
import { HOST_CARD } from '../../shared/core/messages.js';
import { $, send } from '../../shared/page.js';
import { createDesktopGrants } from '../../shared/desktop_grants.js';
import { AGENT_NEEDS_CHROMIUM, features } from '../../shared/browser.js';
import { pollWhileVisible } from '../../shared/core/poll.js';

const shown = () => document.body.dataset.view === 'view-agent';
let grants = null;
let loading = false;
/** The host's health as last read: tool count and providers' states, to notice a change. */
let seen = null;

async function healthKey() {
  const r = await send(HOST_CARD.STATUS, { refresh: false }).catch(() => null);
  const h = r?.health;
  if (!h?.ok) return `down:${r?.error?.message || ''}`;
  return JSON.stringify([h.capabilities, (h.providers || []).map((p) => `${p.prefix}:${p.state}`)]);
}

/** Reads the agent's desktop and its grants, and shows them. */
async function load() {
  if (loading) return;
  loading = true;
  try {
    seen = await healthKey();
    const g = await grants.load();
    const offered = Boolean(g?.ok && g.offered);
    $('agent-desktop-status').textContent = offered
      ? `Desktop server "${g.server}", profile: ${g.profile}.`
      : g?.ok ? `The desktop is not offered. ${g.why}` : 'The agent\'s desktop could not be read.';
    $('agent-grants').hidden = !offered;
    $('agent-desktop-setup').hidden = offered || !g?.ok;
  } finally {
    loading = false;
  }
}

async function follow() {
  if (!shown() || loading) return;
  if ((await healthKey()) !== seen) await load();
}

function main() {
  // Where the agent cannot run (Firefox: no chrome.debugger) there are no agent grants to show: the tab goes, the view says why.
  if (!features().agent) {
    document.querySelector('.app-bar .tab[data-view="view-agent"]').hidden = true;
    $('agent-desktop-status').textContent = AGENT_NEEDS_CHROMIUM;
    $('agent-refresh').hidden = true;
    return;
  }
  grants = createDesktopGrants({
    list: $('agent-grant-list'), state: $('agent-grants-state'), suggested: $('agent-grants-suggested'), save: $('agent-grants-save'), prefix: 'agent-grant',
  });
  $('agent-refresh').addEventListener('click', () => load().catch(() => {}));
  document.addEventListener('gnosis:view', () => { if (shown()) load().catch(() => {}); });
  if (shown()) load().catch(() => {});
  pollWhileVisible(follow, 1000);
}

main();
