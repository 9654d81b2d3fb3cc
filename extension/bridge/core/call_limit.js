// How long the worker waits for one execute: the host's own per-call limit,
// as its health reports it (callTimeoutMs), plus a margin for the host's
// TIMEOUT reply to arrive first.

/** The host's per-call limit when its health does not say (a host older than callTimeoutMs). */
export const HOST_CALL_TIMEOUT_MS = 120_000;

/** Added to the host's limit: the host answers TIMEOUT itself before the worker gives up. */
export const EXECUTE_MARGIN_MS = 30_000;

/**
 * @param {{callTimeoutMs?: number}|null|undefined} health the host's last health reply
 * @returns {number} how long one execute may take before the worker gives up, in ms
 */
export function executeLimitMs(health) {
  const hostMs = Number(health?.callTimeoutMs);
  return (Number.isFinite(hostMs) && hostMs > 0 ? hostMs : HOST_CALL_TIMEOUT_MS) + EXECUTE_MARGIN_MS;
}
