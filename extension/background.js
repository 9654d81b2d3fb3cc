// The extension's background: one handler map for every runtime message,
// built from the chat bridge's and the browser agent's handlers, with the
// sender checked on every message (shared/core/router.js). Chromium runs this file as
// the service worker, Firefox as an event page (manifest.json names it both
// ways). The browser agent needs chrome.debugger, which Firefox lacks: there
// only the chat bridge is wired, and the sidebar says why the agent is absent.
// Feature logic lives in the imported modules; this file is only the glue.
import { senderKind, route, mergeHandlers } from './shared/core/router.js';
import { features } from './shared/browser.js';
import { handlers as bridgeHandlers, init as initBridge } from './bridge/worker/worker.js';
import { handlers as agentHandlers, init as initAgent } from './agent/worker/worker.js';
import { handlers as pageAssistantHandlers, init as initPageAssistant } from './agent/worker/page_assistant_worker.js';

const can = features(chrome);
const handlers = can.agent
  ? mergeHandlers(bridgeHandlers, agentHandlers, pageAssistantHandlers)
  : mergeHandlers(bridgeHandlers);
const extensionOrigin = chrome.runtime.getURL('').replace(/\/$/, '');

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  const { handler, error } = route(handlers, message, senderKind(sender, chrome.runtime.id, extensionOrigin));
  if (error) {
    sendResponse({ ok: false, error });
    return false;
  }
  Promise.resolve()
    .then(() => handler.run(message, sender))
    .then((value) => sendResponse(value === undefined ? { ok: true } : value),
      (err) => sendResponse({ ok: false, error: String(err?.message || err) }));
  return true;
});

initBridge();
if (can.agent) {
  initAgent();
  initPageAssistant();
} else if (can.sidebar && chrome.action?.onClicked) {
  // No side panel to open from the toolbar button: it opens the sidebar,
  // which explains that the browser agent needs a Chromium browser.
  chrome.action.onClicked.addListener(() => { chrome.sidebarAction.toggle?.(); });
}
