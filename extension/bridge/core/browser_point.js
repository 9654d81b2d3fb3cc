// The little of the browser.* tools that the chat page's content script
// needs too (the lines about a result's images, core/image_note.js): which
// names are the extension's own tools, and how a point on a browser.screenshot
// is given to them. The catalogue itself is core/browser_tools.js. Pure.

/** The prefix of the extension's capabilities. */
export const BROWSER_PREFIX = 'browser';

/** Whether a capability name is one of the extension's (browser.*), which the host never sees. */
export function isBrowserCapability(name) {
  return typeof name === 'string' && name.startsWith(`${BROWSER_PREFIX}.`);
}

/** Largest coordinate of a point on the last screenshot: 0..999 on both axes. */
export const POINT_MAX = 999;

/** How a point on a browser.screenshot's image is given to the browser tools, whatever size the image was attached at. */
export const SHOT_POINT_RULE = `For the browser tools, a point in this image is x and y from 0 to ${POINT_MAX} across it, whatever its size: 0,0 is its top-left corner and ${POINT_MAX},${POINT_MAX} its bottom-right.`;
