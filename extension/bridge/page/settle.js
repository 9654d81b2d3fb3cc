// The chat bridge's content script, deciding when a reply is done: after
// each change of the newest reply it asks the reaction rules
// (bridge/core/reaction.js) whether to hand the reply over now — the site's
// streaming indicator ("Still replying while") went away and the reply held
// still for a moment, or, without an indicator, the quiet time passed — or
// when to look again. One reply is handed over at a time; a change meanwhile
// is looked at once the worker has answered.

import * as R from '../core/reaction.js';
import * as call from './call.js';
import * as observe from './observe.js';
import { pageState } from './page_state.js';
import { queryAll, visible } from './dom.js';

let timer = 0;
let changedAt = 0;
let sawIndicator = false;
let goneAt = 0;
let busy = false;
let again = false;
let handed = ''; // reply id + text last handed over

/** 'none' without an indicator, else whether one of its elements is visible. */
function indicator() {
  const css = pageState.config?.streaming;
  if (!css) return 'none';
  return queryAll(css).some(visible) ? 'visible' : 'hidden';
}

/** The newest reply changed. */
function changed() {
  changedAt = Date.now();
  evaluate();
}

function evaluate() {
  clearTimeout(timer);
  if (!pageState.config) return;
  const now = Date.now();
  const shown = indicator();
  if (shown === 'visible') {
    sawIndicator = true;
    goneAt = 0;
  } else if (shown === 'hidden' && sawIndicator && !goneAt) {
    goneAt = now;
  }
  // The next reply may stream while the last hand-over is still checking its send (the site
  // answers at once): its indicator is noted above, so it is judged by it once the worker is done.
  if (busy) {
    again = true;
    return;
  }
  const d = R.decide({ now, changedAt, indicator: shown, sawIndicator, goneAt, quietMs: pageState.config.debounceMs });
  if (!d.act) {
    timer = setTimeout(evaluate, d.waitMs);
    return;
  }
  sawIndicator = false;
  goneAt = 0;
  handOver(false, d.path);
}

/**
 * Hands the newest reply to the worker (baseline: at once, as the page's state when watching starts).
 * ended: what said the reply was done, 'indicator' or 'quiet' (decide's path).
 */
async function handOver(baseline, ended = '') {
  observe.look();
  const now = observe.current();
  if (!now) return;
  const text = (now.el.innerText ?? now.el.textContent ?? '').trim();
  const key = `${now.reply.id}\u0000${text}`;
  if (key === handed && !baseline) return;
  handed = key;
  busy = true;
  try {
    await call.run({ reply: now.reply, text, index: now.count, baseline, ended });
  } finally {
    busy = false;
    if (again) {
      again = false;
      evaluate();
    }
  }
}

function stop() {
  clearTimeout(timer);
  sawIndicator = false;
  goneAt = 0;
  handed = '';
}

export { changed, evaluate, handOver, stop };
