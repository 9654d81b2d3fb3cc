// The setup page's steps follow what changes outside the page (servers that
// start and fail, pages opened and armed) by asking again while the step is
// open: poller(refresh) returns setEnabled(on), which starts or stops that.

/**
 * @param {() => Promise<unknown>} refresh asks and renders once
 * @param {number} [ms] how often while enabled
 * @returns {(enabled: boolean) => void}
 */
export function poller(refresh, ms = 1500) {
  let timer = 0;
  let on = false;
  return (enabled) => {
    if (enabled === on) return;
    on = enabled;
    clearInterval(timer);
    if (!enabled) return;
    refresh().catch(() => {});
    timer = setInterval(() => refresh().catch(() => {}), ms);
  };
}
