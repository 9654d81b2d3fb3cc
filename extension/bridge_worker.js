// Placeholder replaced by the chat bridge's worker module.
export const handlers = {};
export function init() {}
