// The runtime ports of the agent's extension pages: each Side Panel's
// 'agent' port (agent/core/panel_contract.js servePanelPort), whose
// disconnection ends the session, cancels its desktop call in flight and
// detaches the debugger at once, and the
// proxy port (PORTS.HOST) on which an extension page's host methods
// (relay.fetch, workspace.*) run on the worker's one native client
// (shared/host_proxy.js). Both accept only this extension's own pages
// (shared/core/router.js senderKind 'extension'), never its web-accessible frame.

import { host } from '../../shared/host.js';
import { serveProxiedPort } from '../../shared/host_proxy.js';
import { PANEL_PORT_NAME, servePanelPort } from '../core/panel_contract.js';
import { PORTS } from '../../shared/core/messages.js';
import { senderKind } from '../../shared/core/router.js';
import { closeSession, detach, openSession } from './agent_sessions.js';
import { abortAction } from './observe_act.js';
import { stopDesktop } from './desktop_task.js';

/** Serves the 'agent' and host proxy ports of this extension's pages. */
export function servePorts() {
  const origin = chrome.runtime.getURL('').replace(/\/$/, '');
  const ours = (port) => senderKind(port.sender, chrome.runtime.id, origin) === 'extension';
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name === PORTS.HOST) {
      serveProxiedPort(port, { request: (method, params, opts) => host.request(method, params, opts), trusted: ours(port) });
      return;
    }
    if (port.name !== PANEL_PORT_NAME) return;
    if (!ours(port)) {
      port.disconnect();
      return;
    }
    servePanelPort(port, {
      onHello: openSession,
      onGone(sessionId) {
        const s = closeSession(sessionId);
        if (!s) return;
        stopDesktop(s);
        abortAction(s).then(() => detach(s));
      },
    });
  });
}
