// The Side Panel's desktop choice: whether the desktop is offered (a
// desktop server with a screenshot tool the profile can use), the "Start
// on: This tab / The desktop" choice of the task box, and the note that says
// why the desktop is not offered; both follow the host (refreshDesktop on
// each change the worker pushes). The tasks themselves go through
// core/desktop_surface.js with the link's tab and desktop (worker_link.js),
// and ask the person in the log when nothing is granted on the desktop
// (desktop_ask.js).

import { panel } from './sidepanel_state.js';
import { link } from './worker_link.js';
import { askDesktopGrants } from './desktop_ask.js';
import { chosenSurface, idlePlaceholder } from './surface_choice.js';
import { createSurfaces } from '../core/desktop_surface.js';
import { $ } from '../../shared/page.js';

/** What the worker says about the desktop now: {offered, prefix, profile, why}. */
async function desktopState() {
  const r = await link.desktopState();
  if (!r?.ok) return { offered: false, why: `The extension could not ask about it: ${r?.error || 'no answer'}.` };
  return r;
}

/** Asks the worker what the desktop is now and shows it in the task box. */
export async function refreshDesktop() {
  panel.desktop = await desktopState();
  showDesktop();
  return panel.desktop;
}

function showDesktop() {
  const d = panel.desktop;
  const radio = $('surface-desktop');
  radio.disabled = !d?.offered;
  if (!d?.offered && radio.checked) {
    document.querySelector('input[name="surface"][value="tab"]').checked = true;
    if ($('run').textContent === 'Run' && !$('task').disabled) $('task').placeholder = idlePlaceholder();
  }
  const note = $('desktop-note');
  note.textContent = d?.offered ? '' : `The desktop is not offered. ${d?.why || 'No desktop server is set up.'}`;
  note.hidden = Boolean(d?.offered);
}

/** The browser of one run: the tab and, when offered, the desktop (the pipeline's browserFor). */
export function surfacesFor({ coordinateMode, surface }) {
  const tab = link.tab({ sessionId: panel.sessionId, windowId: panel.windowId, coordinateMode });
  const d = panel.desktop;
  const desktop = d?.offered
    ? link.desktop({ sessionId: panel.sessionId, coordinateMode, taskKey: () => panel.pipeline?.taskKey, taskText: () => panel.pipeline?.session?.task })
    : null;
  return createSurfaces({ tab, desktop, start: surface || chosenSurface(), why: d?.why, state: d, askGrants: askDesktopGrants });
}

/**
 * Wires the choice: the desktop is asked about when the panel opens, and
 * again each time the worker says the offer changed (sidepanel.js hands
 * desktop_settings.js followDesktop to the panel's port).
 */
export function wireDesktopChoice() {
  // The idle prompt follows the choice (a question or a pause has its own).
  for (const radio of document.querySelectorAll('input[name="surface"]')) {
    radio.addEventListener('change', () => {
      if ($('run').textContent === 'Run' && !$('task').disabled) $('task').placeholder = idlePlaceholder();
    });
  }
  return refreshDesktop().catch(() => {});
}
