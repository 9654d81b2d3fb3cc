// The chat bridge's content script as the worker injects it: it imports the
// entry module (content.js), which runs once per page however often this is
// injected. Its value, the import's promise, is what executeScript waits for,
// so the worker configures the page only once the modules are listening.
import(chrome.runtime.getURL('bridge/page/content.js')).then(() => true);
