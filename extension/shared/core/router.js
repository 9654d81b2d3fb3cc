// Message routing for the background worker: one handler map, and a sender
// check on every message. Pure: no chrome.* calls, so it is tested with node --test.
//
// A handler is {from: 'extension' | 'content' | 'frame' | 'any', run(message, sender) -> Promise<any> | any}.
// 'extension' accepts only this extension's own pages (options, setup, side
// panel, approval window: core/extension_pages.js), each top-level in our own
// tab or in no tab; 'content' only this extension's content scripts running
// in a web tab; 'frame' only this extension's web-accessible page (the Page
// Assistant's iframe), wherever a page placed it: extension code in an
// extension process, but placed by a page, so it gets only its own messages.
import { isExtensionPage, isFramePage } from './extension_pages.js';

const WEB = /^https?:/;

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
  const tab = sender.tab;
  const inTab = Boolean(tab) && typeof tab.id === 'number';
  if (isFramePage(url, extensionOrigin)) return inTab ? 'frame' : null;
  if (isExtensionPage(url, extensionOrigin)) {
    if (!tab) return 'extension'; // the side panel, the Firefox sidebar
    const topLevel = sender.frameId === undefined || sender.frameId === 0;
    return topLevel && String(tab.url || '').startsWith(extensionOrigin + '/') ? 'extension' : null;
  }
  if (inTab && WEB.test(url)) return 'content';
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
