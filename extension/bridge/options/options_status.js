// The options page's run state: whether the site is armed, whether results
// are sent (Auto-send), what Start and Stop allow (Start needs the host to
// answer; a disabled Start says why), and the "Last" line with the worker's
// newest report for the site.
import { $, setError, setIfChanged, setText, show, state } from './options_page.js';
import { lastEventIsError, lastEventParts, lastEventWhat } from '../core/options_last.js';
import { sendState } from '../core/site_settings.js';

let hostConnected = false;
let shownLast = '';
let startBlocked = 'Checking whether the host answers…';

/** Records whether the host answers and, if not, why Start is blocked. */
export function setHostGate(connected, blocked) {
  hostConnected = connected;
  startBlocked = blocked;
  syncStartStop();
}

/** Start needs the host and a stopped page; Stop needs an armed one. Disabled Start says why. */
export function syncStartStop() {
  const eligible = !!state.origin;
  const why = eligible && !hostConnected && !state.armed ? startBlocked : '';
  // Called every second: each property is written only when it changes.
  setIfChanged($('start'), 'disabled', !eligible || !hostConnected || !!state.armed);
  setIfChanged($('stop'), 'disabled', !eligible || !state.armed);
  setIfChanged($('start'), 'title', why);
  setText($('start-blocked'), why);
  show($('start-blocked'), !!why);
}

/** The run bar's word on sending, from the site's saved settings: sent, or left in the input. */
export function showSendState(settings) {
  const s = sendState(settings);
  $('send-state').textContent = s.text;
  $('send-state').dataset.on = String(s.on);
}

export function setArmed(armed) {
  state.armed = armed;
  setText($('armed-state'), armed ? 'Armed: watching this page' : 'Stopped');
  setIfChanged($('armed-state').dataset, 'armed', String(!!armed));
  syncStartStop();
}

/** Shows the worker's newest report for the site; a failure goes to the error line too. */
export function showLast(last) {
  // Asked for every second: the line is written again only when the report is another.
  const key = JSON.stringify(last ?? null);
  if (key === shownLast) return;
  shownLast = key;
  if (!last) {
    $('last-event').textContent = '';
    $('last-event').title = '';
    return;
  }
  const when = new Date(last.at).toLocaleTimeString();
  const what = lastEventWhat(last);
  // A capability's name in code style, so a name with spaces reads as one.
  const parts = lastEventParts(last).map((p) => (typeof p === 'string' ? p : Object.assign(document.createElement('code'), { className: 'tool-name', textContent: p.name })));
  $('last-event').replaceChildren('Last: ', ...parts, ` at ${when}`);
  $('last-event').title = `Last: ${what} at ${when}`;
  if (lastEventIsError(last)) setError(what);
}
