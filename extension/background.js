// The extension's background in Chromium browsers (the service worker): one
// handler map for every runtime message, built from the chat bridge's and
// the browser agent's handlers, with the sender checked on every message
// (shared/listen.js). Firefox runs firefox/background.js instead (the
// manifest's background.scripts): the bridge alone, without its browser.*
// tools that drive a tab, since those and the agent need chrome.debugger.
// Feature logic lives in the imported modules; this file is only the glue.
import { mergeHandlers } from './shared/core/router.js';
import { listen } from './shared/listen.js';
import { handlers as bridgeHandlers, init as initBridge } from './bridge/worker/bridge_worker.js';
import { handlers as agentHandlers, init as initAgent } from './agent/worker/agent_worker.js';
import { handlers as pageAssistantHandlers, init as initPageAssistant } from './agent/worker/page_assistant_worker.js';
import { handlers as desktopHandlers, initDesktop } from './agent/worker/desktop_worker.js';
import { agentOrigin, runAgentCall } from './bridge/worker/agent_calls.js';
import { useTabTools } from './bridge/worker/browser_calls.js';
import { TAB_TOOLS } from './bridge/worker/browser_tab_tools.js';

// The chat bridge's browser.* tools that see and act on a tab need chrome.debugger: wired here, not in Firefox's background.
useTabTools(TAB_TOOLS);
listen(mergeHandlers(bridgeHandlers, agentHandlers, pageAssistantHandlers, desktopHandlers));
initBridge();
initAgent();
initPageAssistant();
// The agent's desktop calls run on the bridge's execute path (grants, approvals, activity log).
initDesktop({ run: runAgentCall, origin: agentOrigin() });
