// Names the Page Assistant's pieces share: the stored toggle, the host access
// it needs, and the content script it registers. Pure constants, imported by
// the worker half (worker/page_assistant_worker.js) and the Side Panel's toggle
// (panel/page_assistant_toggle.js) so both ask for and check the same thing. The
// port the bar's frame holds to the worker is PORTS.PAGE_ASSISTANT_FRAME
// (shared/core/messages.js).

/** chrome.storage.local key of the toggle (true: on). */
export const ENABLED_KEY = 'pageAssistant.enabled';
/** The host access the bar needs: every http and https page. */
export const PAGE_ORIGINS = Object.freeze(['http://*/*', 'https://*/*']);
/** The registered content script's id. */
export const SCRIPT_ID = 'gnosis-page-assistant';
/**
 * The content script: it only places the bar's frame (the bar is FRAME_PAGE).
 * page_assistant.js and what it imports joined into one classic script
 * (tools/content_bundle.mjs), so no module of it is web-accessible.
 */
export const SCRIPT_FILES = Object.freeze(['agent/page/page_assistant.bundle.js']);
/** The entry module SCRIPT_FILES' bundle runs. */
export const SCRIPT_ENTRY = 'agent/page/page_assistant.js';
/** The bar: an extension page the content script embeds in an iframe, out of the page's reach. */
export const FRAME_PAGE = 'agent/frame/page_assistant_frame.html';
/** Shown when the toggle cannot turn on for lack of host access. */
export const PERMISSION_MESSAGE = 'Allow access to all http and https sites so the Page Assistant can appear on web pages (turn it on again and accept the prompt).';
