// The options page's Capability prompt section: the prompt the host's tools
// generate, shown, copied to the clipboard, or inserted into the chat page.
import { $, send, show, state } from './options_page.js';
import { ensureAccess } from './options_site.js';
import { BRIDGE } from '../../shared/core/messages.js';

async function getPrompt() {
  $('prompt-state').textContent = 'Asking the host…';
  const r = await send(BRIDGE.CAPABILITY_PROMPT, { origin: state.origin });
  if (!r.ok) {
    $('prompt-state').textContent = `Could not build the prompt: ${r.error}`;
    return '';
  }
  $('prompt-state').textContent = `${r.count} capabilities.`;
  return r.text;
}

/** Wires Show prompt, Copy prompt and Insert into page. */
export function wirePrompt() {
  $('prompt-show').addEventListener('click', async () => {
    const text = await getPrompt();
    if (text) {
      $('prompt-text').value = text;
      show($('prompt-text'), true);
    }
  });
  $('prompt-copy').addEventListener('click', async () => {
    const text = await getPrompt();
    if (!text) return;
    await navigator.clipboard.writeText(text).then(() => {
      $('prompt-state').textContent = 'Copied.';
    }, () => {
      $('prompt-text').value = text;
      show($('prompt-text'), true);
      $('prompt-text').select();
      $('prompt-state').textContent = 'Copy was refused: the prompt is selected below.';
    });
  });
  $('prompt-insert').addEventListener('click', () => {
    ensureAccess().then(async (ok) => {
      if (!ok || !state.tab) {
        $('prompt-state').textContent = 'Open the chat page in a tab first.';
        return;
      }
      const r = await send(BRIDGE.INSERT_PROMPT, { tabId: state.tab.id, origin: state.origin });
      $('prompt-state').textContent = r?.ok ? 'Inserted into the page.' : `Could not insert: ${r?.error}`;
    });
  });
}
