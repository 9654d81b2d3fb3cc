// The files of the chat bridge's content script, in the order the worker
// injects them (chrome.scripting.executeScript): the pure rules first (each
// defines one global object), then the page's parts, then content.js, which
// wires them and answers the worker. Pure.

/** The content script's files, relative to the extension's root. */
export const PAGE_SCRIPTS = Object.freeze([
  'bridge/core/arrival.js',
  'bridge/core/reaction.js',
  'bridge/core/pick_rules.js',
  'bridge/core/detect.js',
  'bridge/page/dom.js',
  'bridge/page/notice.js',
  'bridge/page/inject.js',
  'bridge/page/observe.js',
  'bridge/page/settle.js',
  'bridge/page/call.js',
  'bridge/page/pick_selector.js',
  'bridge/page/pick.js',
  'bridge/page/detect.js',
  'bridge/page/sent.js',
  'bridge/page/content.js',
]);
