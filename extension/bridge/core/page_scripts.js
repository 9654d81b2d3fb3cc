// The chat bridge's content script: the worker injects its loader
// (chrome.scripting.executeScript), a content script that imports the entry
// module, content.js, which imports the others and answers the worker. A
// content script may import() only web-accessible files: manifest.json's
// web_accessible_resources lists exactly the modules the content scripts
// load (extension/test/layout.test.js checks it). Like the Page Assistant's
// frame, they let a page tell that Gnosis is installed; loaded into the
// page's own world they can do nothing (chrome.runtime is not there). Pure.

/** The loader the worker injects, relative to the extension's root. */
export const PAGE_LOADER = 'bridge/page/content_loader.js';

/** The entry module the loader imports. */
export const PAGE_ENTRY = 'bridge/page/content.js';
