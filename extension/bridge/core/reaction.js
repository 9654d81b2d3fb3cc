// When the chat bridge hands the newest reply over: as soon as the site's
// streaming indicator ("Still replying while", a preset's or the person's)
// has gone away and the reply has stopped changing for a moment; on pages
// with no indicator, or whose indicator never showed for this reply, once the
// reply has been quiet for the configured quiet time. A reply still growing,
// or whose indicator comes back, is not handed over yet. Pure; tested with
// node --test.
//
// Imported by the content script (bridge/page/) and by node --test.

/** How long a reply must stay unchanged, its indicator gone, before it is handed over (ms). */
const GRACE_MS = 100;
/** How often the indicator is looked at while it shows (ms): a site may hide it with a class or a style. */
const POLL_MS = 50;

/**
 * What to do now.
 * @param {{now: number, changedAt: number, indicator: 'none'|'visible'|'hidden', sawIndicator: boolean,
 *   goneAt: number, quietMs: number}} s
 *   changedAt: when the newest reply last changed; indicator: 'none' when the page has no indicator
 *   configured, else whether a matching element is visible; sawIndicator: it was visible since the last
 *   hand-over; goneAt: when it was last seen going away
 * @returns {{act: true, path: 'indicator'|'quiet'} | {act: false, waitMs: number}}
 */
function decide({ now, changedAt, indicator, sawIndicator, goneAt, quietMs }) {
  if (indicator === 'visible') return { act: false, waitMs: POLL_MS };
  if (indicator === 'hidden' && sawIndicator) {
    const left = GRACE_MS - (now - Math.max(changedAt, goneAt || 0));
    return left <= 0 ? { act: true, path: 'indicator' } : { act: false, waitMs: left };
  }
  const left = quietMs - (now - changedAt);
  return left <= 0 ? { act: true, path: 'quiet' } : { act: false, waitMs: left };
}

export { GRACE_MS, POLL_MS, decide };
