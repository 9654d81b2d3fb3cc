// Capped exponential backoff, shared by the native client's reconnects and
// the model client's retries. Pure.

/**
 * The delay before retry number `attempt` (1 for the first): baseMs doubled
 * per earlier attempt, never above maxMs.
 * @param {number} attempt
 * @param {number} baseMs
 * @param {number} maxMs
 * @returns {number}
 */
export function cappedExponential(attempt, baseMs, maxMs) {
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt, 1) - 1, 30));
}
