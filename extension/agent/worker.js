// Placeholder replaced by the browser agent's worker module.
export const handlers = {};
export function init() {}
