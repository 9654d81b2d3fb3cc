// The Page Assistant's content script as the worker registers and injects it:
// it imports the module (page_assistant.js), which runs once per document
// however often this is injected.
import(chrome.runtime.getURL('agent/page/page_assistant.js')).then(() => true);
