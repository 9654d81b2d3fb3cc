// The one sleep that a Stop cuts short, for the model client's retry waits
// (model_client.js) and the tab engine's pauses (shared/tab_executor.js).
// Pure.

const TIMERS = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (t) => clearTimeout(t) };

/**
 * Sleeps ms, or rejects with stopped() as soon as signal aborts (at once when it already has).
 * @param {number} ms
 * @param {AbortSignal} [signal]
 * @param {() => Error} stopped the error of a stopped wait (each caller's own: ModelError, actionStopped)
 * @param {{setTimeout: Function, clearTimeout: Function}} [timers] the clock (tests give their own)
 */
export function abortableSleep(ms, signal, stopped, timers = TIMERS) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(stopped());
    const t = timers.setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    function onAbort() { timers.clearTimeout(t); reject(stopped()); }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
