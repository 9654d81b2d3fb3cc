// The panel's question when a task moves to the desktop and nothing is
// granted to the agent there yet (core/desktop_surface.js askGrants): a card
// in the log with the suggested grants by what a call does (looking,
// pointing and clicking, typing and keys: each kind, its decision and what
// it covers; shared/core/desktop_kinds.js), "Grant and go on" (one click: saved as suggested, and
// the task goes on) and "Not now" (the task hears that the desktop is not
// granted). Saving the grants in Settings → Desktop answers it too; Stop
// ends it. DOM glue.

import { addEntry } from './sidepanel_log.js';
import { pageRelay } from './page_assistant_panel.js';
import { panel } from './sidepanel_state.js';
import { ASKING } from '../core/page_assistant_state.js';
import { link } from './worker_link.js';
import { decisionLabel } from '../../shared/desktop_grants.js';
import { DESKTOP_KINDS, KIND_WORDS } from '../../shared/core/desktop_kinds.js';
import { $, h } from '../../shared/page.js';

let pending = null; // the question on screen: {settle(granted, note)}

/** One suggested grant as the card shows it: "Pointing and clicking — Ask each time — clicks, pointer moves, …". */
function row(kind, grants) {
  return h('li', { 'data-kind': kind },
    h('span', { text: KIND_WORDS[kind].name }), ' ',
    h('strong', { text: decisionLabel(grants.suggested[kind]) }),
    h('span', { class: 'muted', text: ` — ${KIND_WORDS[kind].what}` }));
}

/**
 * Asks the person to grant the suggestion; resolves true once it is saved,
 * false for "Not now" or when signal aborts (Stop, Pause).
 * @param {{suggested:Object<string,string>, server:string}} grants suggested: kind -> decision
 * @param {AbortSignal} [signal]
 */
export function askDesktopGrants(grants, signal) {
  pending?.settle(false, 'Not answered: another question took its place.');
  return new Promise((resolve) => {
    const status = $('status').textContent;
    const grant = h('button', { type: 'button', class: 'primary small', id: 'desktop-ask-grant', text: 'Grant and go on' });
    const later = h('button', { type: 'button', class: 'small', id: 'desktop-ask-later', text: 'Not now' });
    const settings = h('button', { type: 'button', class: 'quiet small', text: 'Settings → Desktop' });
    const buttons = h('div', { class: 'row' }, grant, later, settings);
    const note = h('p', { class: 'ask-note', role: 'status' });
    const li = addEntry('ask-grants', undefined, (el) => {
      el.append(
        h('p', { class: 'ask-title', text: 'May the agent use the desktop?' }),
        h('p', { text: `This task needs the desktop (the server "${grants.server}"), and nothing is granted to the agent there yet. The suggestion:` }),
        h('ul', { class: 'ask-list' }, ...DESKTOP_KINDS.map((kind) => row(kind, grants))),
        buttons, note);
    });
    $('status').textContent = 'Waiting for your answer in the log: may the agent use the desktop?';
    // A page's bar that started the task says where the question is.
    const step = panel.pipeline?.session?.step || 0;
    pageRelay.event({ type: 'step', step, phase: ASKING });
    const me = {
      settle(granted, text) {
        if (pending !== me) return;
        pending = null;
        signal?.removeEventListener('abort', onAbort);
        buttons.remove();
        note.textContent = text;
        li.dataset.answer = granted ? 'granted' : 'not-granted';
        if ($('status').textContent.startsWith('Waiting for your answer in the log')) $('status').textContent = status;
        // Back to what the run was doing: starting, or the step's action (a switch to the desktop).
        pageRelay.event({ type: 'step', step, phase: step > 0 ? 'act' : '' });
        resolve(granted);
      },
    };
    const onAbort = () => me.settle(false, 'Not answered: the task was stopped.');
    pending = me;
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    grant.addEventListener('click', async () => {
      grant.disabled = true;
      note.textContent = 'Saving…';
      const r = await link.saveDesktopGrants({ ...grants.suggested });
      if (!r?.ok) {
        grant.disabled = false;
        note.textContent = `Not saved: ${r?.error || 'no answer'}`;
        return;
      }
      me.settle(true, 'Granted as suggested; the task goes on. Change them any time in Settings → Desktop.');
    });
    later.addEventListener('click', () => me.settle(false, 'Not granted: the task goes on without the desktop.'));
    settings.addEventListener('click', () => $('show-settings').click());
  });
}

/** Settings → Desktop saved the agent's grants: the question waiting for them is answered. */
export function desktopGrantsSaved() {
  pending?.settle(true, 'Granted in Settings → Desktop; the task goes on.');
}
