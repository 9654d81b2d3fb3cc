// The options page's "Find them on the page": on a site no preset fits, the
// content script proposes the chat's elements from the page's own structure
// (bridge/page/detect_page.js), outlines them on the page and lets the person
// confirm them there; the confirmed ones fill the form, and the line under the
// button says which were found and which are left to Pick. Opened from the
// setup page's "Arm this site" (?detect=1), it starts by itself.
import { $, send, state } from './options_page.js';
import { BRIDGE } from '../../shared/core/messages.js';

const LABELS = { source: 'Extract from', destination: 'Inject into', sendButton: 'Send button', streaming: 'Still replying while' };
const NAMES = { ...LABELS, sendWithEnter: 'Send with Enter' };

let running = false;

function say(text) {
  $('detect-state').textContent = text;
}

/**
 * Asks the page for its elements and waits for the person to confirm them there.
 * @param {{ensureAccess: () => Promise<boolean>, save: () => Promise<boolean>, check: () => void}} hooks
 */
export async function detectOnPage({ ensureAccess, save, check }) {
  if (running || !state.origin) return;
  if (!state.tab) {
    say('Open this site in a tab first.');
    return;
  }
  if (!(await ensureAccess())) {
    say('Gnosis needs access to this site to look at its page.');
    return;
  }
  running = true;
  $('detect').disabled = true;
  const origin = state.origin;
  say('Confirm on the page what Gnosis found (Escape cancels)…');
  try {
    const r = await send(BRIDGE.DETECT, { tabId: state.tab.id, origin, show: true });
    if (state.origin !== origin) return;
    if (!r?.ok) {
      say(r?.cancelled ? 'Cancelled: nothing was changed.' : `Could not look at the page: ${r?.error || 'no answer'}`);
      return;
    }
    const used = [];
    for (const field of Object.keys(LABELS)) {
      const p = r.fields?.[field];
      if (!p?.used || !p.selector) continue;
      $(field).value = p.selector;
      used.push(field);
    }
    if (r.fields?.sendWithEnter?.used) {
      $('sendWithEnter').checked = true;
      used.push('sendWithEnter');
    }
    const left = Object.keys(LABELS).filter((f) => !used.includes(f) && !$(f).value);
    if (used.length) await save();
    check();
    const names = (list) => list.map((f) => NAMES[f]).join(', ');
    const unsent = !$('sendButton').value && !$('sendWithEnter').checked ? ' Without a Send button, each result is written into the chat input and not sent.' : '';
    const enter = r.fields?.sendButton?.enter && !$('sendButton').value && !$('sendWithEnter').checked ? ' You sent your message with Enter: tick Send with Enter, or Pick the send button, to have results sent.' : '';
    say(`${used.length ? `Filled in from the page: ${names(used)}.` : 'Nothing was filled in.'}${left.length ? ` Left to Pick: ${names(left)}.` : ''}${unsent}${enter}`);
  } catch (err) {
    say(`Could not look at the page: ${err?.message || err}`);
  } finally {
    running = false;
    $('detect').disabled = !state.tab;
    $('detect').classList.toggle('primary', !$('source').value || !$('destination').value);
  }
}

/** Wires the button, and starts at once when the setup page's "Arm this site" opened the page for a site without settings. */
export function wireDetect(hooks) {
  $('detect').addEventListener('click', () => detectOnPage(hooks));
}

/** After the site loaded: starts when asked to (?detect=1) and the site has no elements yet. */
export function maybeDetect(hooks) {
  say('');
  $('detect').disabled = !state.tab;
  const asked = new URLSearchParams(location.search).get('detect') === '1';
  const empty = ['source', 'destination'].every((f) => !$(f).value);
  const offer = empty && !state.preset && !!state.tab;
  // With nothing set, finding the elements is the next step.
  $('detect').classList.toggle('primary', offer);
  if (!offer) return;
  if (asked && state.granted) detectOnPage(hooks);
  else say(state.granted ? 'No preset fits this site: Find them on the page proposes its elements from the page itself.'
    : 'No preset fits this site: Find them on the page asks for access to it, then proposes its elements.');
}

/** At Start: a site armed without a send button says plainly, by Start, that results are not sent. */
export function sayIfUnsent() {
  if ($('sendButton').value.trim() || $('sendWithEnter').checked) return;
  $('send-state').textContent = 'No Send button: each result is written into the chat input and not sent';
  $('send-state').dataset.on = 'false';
}
