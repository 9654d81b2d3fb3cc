// The Side Panel's view of the browser: its half of agent/core/panel_contract.js
// with the chrome.runtime pieces filled in.
//
// createBrowserBridge is the `browser` interface AgentSession needs (requests
// to the worker's handlers); connectPanel opens the 'agent' port whose
// disconnection tells the worker to detach, keeps the worker alive with pings
// while a long model request is in flight, and hands on the pushes from a
// page's Page Assistant.

import { connectPanelPort, createBrowserLink, PANEL_PORT_NAME } from '../core/panel_contract.js';
import { isWorkerGone, workerStopped } from '../core/worker_stop.js';

/**
 * @param {{sessionId:string, windowId?:number, coordinateMode?:string, send?:Function}} o
 */
export function createBrowserBridge(o) {
  const send = o.send || ((m) => chrome.runtime.sendMessage(m));
  // The browser stopped the worker under a request: said in words by the session (core/worker_stop.js).
  const guarded = (m) => Promise.resolve().then(() => send(m)).catch((err) => { throw isWorkerGone(err) ? workerStopped(err) : err; });
  return createBrowserLink({ ...o, send: guarded });
}

/**
 * Connects the panel's port. onPush gets each push ({kind, tabId, task?…}, panel_contract.js readPagePush);
 * onDesktop is called when the desktop offer may have changed.
 * Reconnects if the worker restarts; the session id stays the same.
 * @returns {Promise<{disconnect():void}>} resolves once the worker registered the session
 */
export function connectPanel({ sessionId, windowId, onPush, onDesktop }) {
  return connectPanelPort({ connect: () => chrome.runtime.connect({ name: PANEL_PORT_NAME }), sessionId, windowId, onPush, onDesktop });
}
