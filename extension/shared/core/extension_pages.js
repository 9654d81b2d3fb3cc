// Which of the extension's documents count as its own pages. Only these may
// send the privileged messages (providers, policy, setup, remembered choices,
// activity): each is opened by the extension itself, never placed by a web
// page. A web-accessible page (the Page Assistant's frame) can be embedded or
// opened by any page, in an about:blank popup or a blob: tab included, so it
// is never one of them; it is a 'frame' wherever it runs and gets only its own
// messages. Pure: no chrome.*. tests/layout.test.js keeps the lists in step
// with the HTML files and the manifest.

/** The extension's own pages, as paths under its origin. */
export const EXTENSION_PAGES = Object.freeze([
  '/bridge/options/options.html',
  '/bridge/setup/setup.html',
  '/bridge/approval/approve.html',
  '/agent/panel/sidepanel.html',
  '/firefox/sidebar.html',
]);

/** The extension's web-accessible pages (manifest web_accessible_resources), as paths. */
export const FRAME_PAGES = Object.freeze([
  '/agent/frame/page_assistant_frame.html',
]);

/**
 * The path of a URL under our origin, or null when it is not under it.
 * @param {string} url
 * @param {string} extensionOrigin without the trailing slash
 */
export function pathUnder(url, extensionOrigin) {
  if (typeof url !== 'string' || !url.startsWith(extensionOrigin + '/')) return null;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}` === extensionOrigin ? u.pathname : null;
  } catch {
    return null;
  }
}

/** Whether a URL is one of the extension's own pages (not a web-accessible one). */
export function isExtensionPage(url, extensionOrigin) {
  const path = pathUnder(url, extensionOrigin);
  return path !== null && EXTENSION_PAGES.includes(path) && !FRAME_PAGES.includes(path);
}

/** Whether a URL is one of the extension's web-accessible pages. */
export function isFramePage(url, extensionOrigin) {
  const path = pathUnder(url, extensionOrigin);
  return path !== null && FRAME_PAGES.includes(path);
}
