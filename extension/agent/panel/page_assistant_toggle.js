// The "Page Assistant" switch at the top of the Side Panel.
//
// Turning it on asks for host access to http/https pages from the click
// (contains first; request only when missing, since request needs the user's
// gesture), then has the worker register the content script and inject it
// into open tabs (worker/page_assistant_worker.js, through the link's
// setPageAssistant). Turning it off unregisters it and
// the pages remove their bar. The state is chrome.storage.local, so every
// panel and page follows it.

import { ENABLED_KEY, PAGE_ORIGINS, PERMISSION_MESSAGE } from '../core/page_assistant_settings.js';
import { link } from './worker_link.js';

function build(container) {
  const label = document.createElement('label');
  label.className = 'check';
  const input = document.createElement('input');
  input.type = 'checkbox';
  input.id = 'page-assistant-enabled';
  const hint = document.createElement('span');
  hint.className = 'hint';
  hint.textContent = 'a task box on web pages while this panel is open';
  label.append(input, ' Page Assistant', hint);
  const message = document.createElement('p');
  message.id = 'page-assistant-message';
  message.className = 'error-text';
  message.hidden = true;
  container.append(label, message);
  return { input, message };
}

async function onChange(ui) {
  const want = ui.input.checked;
  ui.message.hidden = true;
  ui.input.disabled = true;
  try {
    if (want) {
      const perm = { origins: [...PAGE_ORIGINS] };
      let granted = await chrome.permissions.contains(perm);
      if (!granted) granted = await chrome.permissions.request(perm).catch(() => false);
      if (!granted) throw new Error(PERMISSION_MESSAGE);
    }
    const r = await link.setPageAssistant(want);
    if (!r?.ok) throw new Error(r?.error || 'the extension did not answer');
  } catch (err) {
    ui.input.checked = !want;
    ui.message.textContent = String(err?.message || err);
    ui.message.hidden = false;
  } finally {
    ui.input.disabled = false;
  }
}

async function main() {
  const container = document.getElementById('page-assistant');
  if (!container) return;
  const ui = build(container);
  ui.input.checked = (await chrome.storage.local.get(ENABLED_KEY))[ENABLED_KEY] === true;
  ui.input.addEventListener('change', () => onChange(ui));
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && changes[ENABLED_KEY] && !ui.input.disabled) ui.input.checked = changes[ENABLED_KEY].newValue === true;
  });
  container.dataset.ready = 'true';
}

main();
