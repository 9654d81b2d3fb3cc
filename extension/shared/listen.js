// The background's one runtime.onMessage listener, shared by the Chromium
// entry (background.js) and Firefox's (firefox/background.js): each message
// is routed through the one handler map after its sender is classified
// (router.js), and answered with the handler's value, {ok: true}, or
// {ok: false, error}. Thin chrome.* glue; the rules live in router.js.
import { senderKind, route } from './core/router.js';

/**
 * Serves runtime messages with handlers.
 * @param {Object<string, object>} handlers the merged handler map (mergeHandlers)
 */
export function listen(handlers) {
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
}
