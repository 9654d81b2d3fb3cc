// How the extension's pages follow what changes outside them (the host, a
// site's state, the servers): they ask again every second or so, but only
// while the page is visible. A page in a background tab or a minimized window
// asks nothing; shown again, it asks at once, so what it shows is fresh.
// Pure: the page's document (for its visibility) and the timers may be passed in;
// they default to the page's own.

/**
 * Calls refresh every ms while polling is on and doc is visible.
 * @param {() => unknown} refresh asks and renders once; a rejected promise is left to the next round
 * @param {number} ms the time between two rounds
 * @param {{doc?: {visibilityState: string, addEventListener: Function}, enabled?: boolean,
 *   timers?: {setInterval: Function, clearInterval: Function}}} [opts]
 *   doc: the page's document (default the page's own); enabled: on from the start (the first round after ms, default true);
 *   timers: setInterval and clearInterval (tests pass a clock)
 * @returns {(enabled: boolean) => void} turns polling on (asking at once) or off
 */
export function pollWhileVisible(refresh, ms, { doc = globalThis.document, enabled = true, timers = globalThis } = {}) {
  let on = enabled;
  let timer = null;
  const round = () => {
    try {
      Promise.resolve(refresh()).catch(() => {});
    } catch { /* the next round asks again */ }
  };
  const sync = (askNow) => {
    const run = on && doc.visibilityState !== 'hidden';
    if (run && timer === null) {
      if (askNow) round();
      timer = timers.setInterval(round, ms);
    } else if (!run && timer !== null) {
      timers.clearInterval(timer);
      timer = null;
    }
  };
  doc.addEventListener('visibilitychange', () => sync(true));
  sync(false);
  return (enabled) => {
    if (enabled === on) return;
    on = enabled;
    sync(true);
  };
}
