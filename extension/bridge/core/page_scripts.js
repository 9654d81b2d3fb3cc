// The chat bridge's content script: the worker injects it
// (chrome.scripting.executeScript, files:): content.js, the entry module,
// which answers the worker, and the modules it imports, joined into one
// classic script by tools/content_bundle.mjs. So no module of the extension
// is web-accessible: a page can neither import them nor read their code
// (tests/e2e/web_accessible.test.js), and Chromium still refuses a content
// script's import() of a resource behind its dynamic URL. Pure.

/** The file the worker injects, relative to the extension's root. */
export const PAGE_LOADER = 'bridge/page/content.bundle.js';

/** The entry module the bundle runs. */
export const PAGE_ENTRY = 'bridge/page/content.js';
