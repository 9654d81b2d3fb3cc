// The extension's service worker: one handler map for every runtime message,
// built from the chat bridge's and the browser agent's handlers, with the
// sender checked on every message (router.js). Feature logic lives in the
// imported modules; this file is only the glue.
import { senderKind, route, mergeHandlers } from './shared/router.js';
import { handlers as bridgeHandlers, init as initBridge } from './bridge/worker.js';
import { handlers as agentHandlers, init as initAgent } from './agent/worker.js';
import { handlers as pageAssistantHandlers, init as initPageAssistant } from './agent/page_assistant_worker.js';

const handlers = mergeHandlers(bridgeHandlers, agentHandlers, pageAssistantHandlers);
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
initAgent();
initPageAssistant();
