// The browser agent's half of the service worker: it owns chrome.debugger.
//
// The loop itself runs in the Side Panel (core/agent_session.js); the panel
// asks this half to attach to a tab, observe it and act on it
// (observe_act.js), over the messages of core/panel_contract.js. Each panel
// holds a runtime port (agent_ports.js); the sessions and the debugger's
// attachments are agent_sessions.js. Tabs opened by the attached tab (links
// with target=_blank, window.open) or by Launch are followed. The Page
// Assistant's tasks and controls reach the open panel of their window through
// agent_sessions.js toPanel(), from page_assistant_worker.js. Upload and
// Download are transfer_worker.js, wired from init().

import { initTransfers } from './transfer_worker.js';
import { watchDebugger } from './agent_sessions.js';
import { handlers, releaseLeftovers } from './observe_act.js';
import { servePorts } from './agent_ports.js';

export { handlers };

/** Wires the toolbar button, the panel ports and the debugger events. */
export function init() {
  releaseLeftovers();
  initTransfers();
  chrome.sidePanel?.setPanelBehavior?.({ openPanelOnActionClick: true })?.catch?.(() => {});
  servePorts();
  watchDebugger();
}
