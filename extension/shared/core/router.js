// Message routing for the background worker: one handler map, and a sender
// check on every message. Pure: no chrome.* calls, so it is tested with node --test.
//
// A handler is {from: 'extension' | 'content' | 'frame' | 'any', run(message, sender) -> Promise<any> | any}.
// 'extension' accepts only this extension's own pages (options, side panel);
// 'content' only this extension's content scripts running in a web tab;
// 'frame' only this extension's pages embedded in a web tab (the Page
// Assistant's iframe): extension code in an extension process, placed in the
// tab but out of the page's reach.

/**
 * Classifies a runtime.onMessage sender.
 * @param {object} sender chrome.runtime.MessageSender
 * @param {string} extensionId chrome.runtime.id
 * @param {string} extensionOrigin chrome.runtime.getURL('') without the trailing slash
 * @returns {'extension'|'content'|'frame'|null} null for anything we do not trust.
 */
export function senderKind(sender, extensionId, extensionOrigin) {
  if (!sender || sender.id !== extensionId) return null;
  const url = typeof sender.url === 'string' ? sender.url : '';
  const inWebTab = Boolean(sender.tab) && typeof sender.tab.id === 'number' && /^https?:/.test(sender.tab.url || '');
  if (url.startsWith(extensionOrigin + '/')) {
    if (inWebTab) return 'frame';
    return sender.tab?.url?.match(/^https?:/) ? null : 'extension';
  }
  if (sender.tab && typeof sender.tab.id === 'number' && /^https?:/.test(url)) return 'content';
  return null;
}

/** The sender kinds a handler may name in `from`. */
export const KINDS = Object.freeze(['extension', 'content', 'frame', 'any']);

/**
 * Finds the handler for a message and checks the sender may call it.
 * @returns {{handler?: object, error?: string}}
 */
export function route(handlers, message, kind) {
  if (!message || typeof message !== 'object' || typeof message.type !== 'string') {
    return { error: 'message must be an object with a string type' };
  }
  if (!Object.hasOwn(handlers, message.type)) return { error: `unknown message type ${message.type}` };
  const handler = handlers[message.type];
  if (kind === null) return { error: 'sender not trusted' };
  if (handler.from !== 'any' && handler.from !== kind) {
    return { error: `${message.type} is not accepted from ${kind}` };
  }
  return { handler };
}

/**
 * Merges the features' handler maps into the worker's one map. Two features
 * claiming the same message type is a programming error that would silently
 * shadow one handler, so it throws instead.
 * @param {...Object<string, object>} maps
 * @returns {Object<string, object>}
 */
export function mergeHandlers(...maps) {
  const merged = {};
  for (const map of maps) {
    for (const [type, handler] of Object.entries(map)) {
      if (Object.hasOwn(merged, type)) throw new Error(`two handlers for message type ${type}`);
      if (!handler || typeof handler.run !== 'function' || !KINDS.includes(handler.from)) {
        throw new Error(`handler for ${type} needs run() and from: ${KINDS.join(', ')}`);
      }
      merged[type] = handler;
    }
  }
  return merged;
}
