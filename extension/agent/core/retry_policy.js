// When to retry a model request and how long to wait.
//
// The agent retries without limit (until success or Stop) on 408, 409, 425,
// 429 and 5xx, timeouts, network errors and success bodies that are not JSON.
// The wait grows exponentially with full jitter, capped, and a Retry-After
// header wins when present (still capped, so a hostile server cannot park the
// agent). Pure module: clocks and randomness are injected.

import { cappedExponential } from '../../shared/core/backoff.js';

const RETRY_STATUS = new Set([408, 409, 425, 429]);

/** True when an HTTP status should be retried. */
export function isRetryableStatus(status) {
  return RETRY_STATUS.has(status) || (status >= 500 && status <= 599);
}

/**
 * Parses Retry-After (delta seconds or an HTTP date) into milliseconds.
 * @param {string|null} value header value
 * @param {number} nowMs current time, for the date form
 * @returns {number|undefined}
 */
export function parseRetryAfter(value, nowMs) {
  if (value === null || value === undefined) return undefined;
  const text = String(value).trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const when = Date.parse(text);
  if (Number.isNaN(when)) return undefined;
  return Math.max(0, when - nowMs);
}

/**
 * Delay before retry number `attempt` (1 for the first retry).
 * @param {number} attempt
 * @param {{baseMs:number, maxMs:number, retryAfterMs?:number, random?:() => number}} opts
 */
export function backoffDelay(attempt, { baseMs, maxMs, retryAfterMs, random = Math.random }) {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, maxMs);
  const exp = cappedExponential(attempt, baseMs, maxMs);
  // Half fixed, half jitter: never zero, never above the cap.
  return Math.min(maxMs, Math.round(exp / 2 + random() * (exp / 2)));
}

/**
 * What to do with an HTTP reply before reading its body.
 * @returns {'ok'|'retry'|'forbidden-local'|'fail'}
 */
export function classifyStatus(status, { loopback }) {
  if (status >= 200 && status < 300) return 'ok';
  if (isRetryableStatus(status)) return 'retry';
  if (status === 403 && loopback) return 'forbidden-local';
  return 'fail';
}

/** The explanation for a 403 from a model server on this machine. */
export function localForbiddenMessage(origin) {
  return `The local model server refused this extension (HTTP 403). Local servers often reject browser-extension origins: allow ${origin} in the server's origin setting (for Ollama set OLLAMA_ORIGINS=${origin} or OLLAMA_ORIGINS=chrome-extension://* and restart it), or put a relay in front of it.`;
}
