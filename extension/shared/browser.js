// What the browser the extension runs in offers, in one place: Chromium
// browsers have chrome.debugger (the browser agent's hands) and the Side
// Panel; Firefox has neither, but has a sidebar, and starts the host with an
// add-on id instead of an origin. Pure: the API object is passed in (the
// global chrome by default), so node --test checks it with plain objects.

/** What the side panel says where the browser agent cannot run. */
export const AGENT_NEEDS_CHROMIUM =
  'The browser agent needs a Chromium browser (Chrome, Edge, Brave, Vivaldi or Chromium): it drives the tab ' +
  'through the chrome.debugger API, which this browser does not offer. The chat bridge works here: open ' +
  'Bridge options to use it.';

/**
 * The features the extension depends on.
 * @param {object} [api] the extension API namespace (chrome or browser)
 * @returns {{debugger: boolean, sidePanel: boolean, sidebar: boolean, agent: boolean, firefox: boolean}}
 *   agent: the browser agent can run (it needs debugger).
 */
export function features(api = globalThis.chrome) {
  const has = (name) => typeof api?.[name] === 'object' && api[name] !== null;
  const dbg = has('debugger') && typeof api.debugger.attach === 'function';
  const runtimeURL = typeof api?.runtime?.getURL === 'function' ? String(api.runtime.getURL('')) : '';
  return {
    debugger: dbg,
    sidePanel: has('sidePanel'),
    sidebar: has('sidebarAction'),
    agent: dbg,
    firefox: runtimeURL.startsWith('moz-extension:'),
  };
}
