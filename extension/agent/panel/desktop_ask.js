// The panel's question when a task moves to the desktop and nothing is
// granted to the agent there yet (core/desktop_surface.js askGrants): a card
// in the log with the suggested grants (each tool, its decision and what the
// agent uses it for), "Grant and go on" (one click: saved as suggested, and
// the task goes on) and "Not now" (the task hears that the desktop is not
// granted). Saving the grants in Settings → Desktop answers it too; Stop
// ends it. DOM glue.

import { addEntry } from './sidepanel_log.js';
import { pageRelay } from './page_assistant_panel.js';
import { panel } from './sidepanel_state.js';
import { ASKING } from '../core/page_assistant_state.js';
import { link } from './worker_link.js';
import { decisionLabel } from '../../shared/desktop_grants.js';
import { $, h } from '../../shared/page.js';

let pending = null; // the question on screen: {settle(granted, note)}

/** One suggested grant as the card shows it: "desktop.computer — Ask each time, for screenshots, clicks, …". */
function row(name, grants) {
  const uses = grants.uses?.[name] || [];
  return h('li', { 'data-name': name },
    h('code', { class: 'tool-name', text: name }), ' ',
    h('strong', { text: decisionLabel(grants.suggested[name]) }),
    uses.length ? h('span', { class: 'muted', text: ` — for ${uses.join(', ')}` }) : null);
}

/**
 * Asks the person to grant the suggestion; resolves true once it is saved,
 * false for "Not now" or when signal aborts (Stop, Pause).
 * @param {{tools:string[], suggested:Object<string,string>, uses?:Object<string,string[]>, server:string}} grants
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
        h('ul', { class: 'ask-list' }, ...grants.tools.map((name) => row(name, grants))),
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
