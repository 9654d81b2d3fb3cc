// The Side Panel's one link to the service worker: its half of
// agent/core/panel_contract.js with the chrome.runtime pieces filled in.
//
// link.tab() and link.desktop() are the surfaces a run drives (requests to
// the worker's handlers; a worker that went away under a request is said in
// words, core/worker_stop.js); the link's other requests serve the panel's
// views (Settings → Desktop, the Page Assistant toggle and relay).
// connectPanel opens the 'agent' port whose disconnection tells the worker to
// let go, keeps the worker alive with pings while a long model request is in
// flight, and hands on the pushes from a page's Page Assistant.

import { connectPanelPort, createPanelLink, PANEL_PORT_NAME } from '../core/panel_contract.js';
import { isWorkerGone, workerStopped } from '../core/worker_stop.js';

/** runtime.sendMessage, with a worker that stopped under a request said in words. */
const send = (m) => Promise.resolve().then(() => chrome.runtime.sendMessage(m)).catch((err) => { throw isWorkerGone(err) ? workerStopped(err) : err; });

/** The panel's link to the worker. */
export const link = createPanelLink(send);

/**
 * Connects the panel's port. onPush gets each push ({kind, tabId, task?…}, panel_contract.js readPagePush);
 * onDesktop is called when the desktop offer may have changed.
 * Reconnects if the worker restarts; the session id stays the same.
 * @returns {Promise<{disconnect():void}>} resolves once the worker registered the session
 */
export function connectPanel({ sessionId, windowId, onPush, onDesktop }) {
  return connectPanelPort({ connect: () => chrome.runtime.connect({ name: PANEL_PORT_NAME }), sessionId, windowId, onPush, onDesktop });
}
