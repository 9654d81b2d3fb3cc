// The chat bridge's content script, the state its modules share: this page
// load's id and the worker's settings while the page is armed.

/**
 * page: this page load, for the worker's record of which replies ran;
 * config: the worker's settings while armed ({source, destination,
 * sendButton, sendWithEnter, streaming, preset, presetMismatch, autoSend, debounceMs, lost,
 * lostWhy}), null otherwise.
 */
export const pageState = { page: Math.random().toString(36).slice(2, 10), config: null };
