// The options page of the chat bridge: per-origin settings (filled in from a
// preset on the major chat sites), what the site may run (its grants in the
// host's policy), Start/Stop, Pick, a live selector check, host status and
// one-click install, and the capability prompt.
// Everything persistent goes through the worker (bridge/worker/bridge_worker.js, by
// chrome.runtime messages); besides that the page calls only chrome.tabs (to
// know the current page), chrome.permissions (requested from the click that
// needs it) and chrome.downloads (the host's installer).
// This file wires Start and Stop (in the run bar at the bottom) and the
// page's polling; each section lives in its own options_*.js module, the
// view switch in options_views.js.
import { $, send, setError, state } from './options_page.js';
import { refreshHost, wireHost } from './options_host.js';
import { setArmed, showLast } from './options_status.js';
import { sayIfUnsent } from './options_detect.js';
import { followCapabilities, grantsSaved, wireGrants } from './options_grants.js';
import { checkSelectors, ensureAccess, fieldErrors, loadTarget, refreshSaved, save, wireSiteForm } from './options_site.js';
import { insertedNote, wirePrompt } from './options_prompt.js';
import { wireViews } from './options_views.js';
import { BRIDGE } from '../../shared/core/messages.js';
import { pollWhileVisible } from '../../shared/core/poll.js';

/**
 * Start: access to the site, the form saved, then the worker arms it with the
 * chosen grants. The page says armed once the worker has answered, so its
 * tabs are being watched by then (the worker marks the site armed before it
 * configures them, and the poll would otherwise say so first).
 */
function start() {
  setError('');
  ensureAccess().then(async (ok) => {
    if (!ok) {
      setError(`Gnosis needs access to ${state.origin} to read and write the chat. Start again and allow it.`);
      return;
    }
    if (!(await save())) return;
    const g = state.grants?.origin === state.origin ? state.grants : null;
    state.starting = true;
    const r = await send(BRIDGE.START, { origin: state.origin, tabId: state.tab?.id, ...(g ? { grants: { ...g.choices } } : {}) })
      .finally(() => { state.starting = false; });
    if (!r.ok) {
      setError(r.error || fieldErrors(r.errors));
      return;
    }
    if (g) grantsSaved(g);
    setArmed(true);
    sayIfUnsent();
    if (r.prompted) $('prompt-state').textContent = insertedNote(r.promptSummary);
    else if (r.promptError) $('prompt-state').textContent = `Could not insert: ${r.promptError}`;
    if (r.failures?.length) setError(`Armed, but some tabs could not be watched: ${r.failures.join('; ')}`);
    checkSelectors();
  });
}

async function stop() {
  const r = await send(BRIDGE.STOP, { origin: state.origin });
  if (r.ok) setArmed(false);
}

/** Follows the worker's state for the site: armed or not, the Last line, and the host's tools as they change. */
async function pollSite() {
  if (!state.origin) return;
  const r = await send(BRIDGE.GET_SITE, { origin: state.origin });
  if (r.ok) {
    if (!state.starting) setArmed(r.armed);
    showLast(r.last);
  }
  await followCapabilities();
}

async function main() {
  wireViews();
  wireHost();
  $('start').addEventListener('click', start);
  $('stop').addEventListener('click', stop);
  wireGrants();
  wireSiteForm();
  wirePrompt();

  await loadTarget();
  document.body.dataset.ready = 'true'; // settings loaded: typing now is not overwritten
  refreshSaved();
  refreshHost(true);
  pollWhileVisible(() => refreshHost(false), 1000);
  pollWhileVisible(checkSelectors, 1500);
  pollWhileVisible(pollSite, 1000);
}

main();
