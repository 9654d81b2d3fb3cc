// Which of the Side Panel's views is shown: Chat or Settings, or, where the
// agent cannot run, the notice that it needs Chromium.

import { AGENT_NEEDS_CHROMIUM } from '../../shared/browser.js';
import { $ } from '../../shared/page.js';

export function show(view) {
  $('chat-view').hidden = view !== 'chat';
  $('settings-view').hidden = view !== 'settings';
  $('show-chat').setAttribute('aria-pressed', String(view === 'chat'));
  $('show-settings').setAttribute('aria-pressed', String(view === 'settings'));
}

/** Where the browser agent cannot run (Firefox: no chrome.debugger), says so instead of the agent's views. */
export function showNeedsChromium() {
  $('needs-chromium').textContent = AGENT_NEEDS_CHROMIUM;
  $('needs-chromium').hidden = false;
  for (const id of ['chat-view', 'settings-view', 'page-assistant']) $(id).hidden = true;
  for (const id of ['show-chat', 'show-settings']) $(id).disabled = true;
  document.body.dataset.ready = 'true';
}
