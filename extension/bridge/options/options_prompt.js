// The options page's Capability prompt section: the prompt the host's tools
// generate for what the grants table chooses (saved or not yet), shown (and
// rebuilt as the table changes), copied to the clipboard, or inserted into
// the chat page.
import { $, changes, send, show, state } from './options_page.js';
import { ensureAccess } from './options_site.js';
import { BRIDGE } from '../../shared/core/messages.js';

/**
 * What the prompt is built from: the origin, and the table's choices as
 * shown (before Start they are not in the host yet), once the table is read.
 */
function promptRequest() {
  const g = state.grants?.origin === state.origin ? state.grants : null;
  return { origin: state.origin, ...(g ? { choices: { ...g.choices } } : {}) };
}

async function getPrompt() {
  $('prompt-state').textContent = 'Asking the host…';
  const r = await send(BRIDGE.CAPABILITY_PROMPT, promptRequest());
  if (!r.ok) {
    $('prompt-state').textContent = `Could not build the prompt: ${r.error}`;
    return '';
  }
  $('prompt-state').textContent = r.summary;
  return r.text;
}

/** The prompt shown below follows the table: a changed choice or a new tool rebuilds it. */
let following = 0;
async function followTable() {
  if ($('prompt-text').hidden) return;
  const n = ++following;
  const r = await send(BRIDGE.CAPABILITY_PROMPT, promptRequest());
  // Only a prompt that changed is news: the table read again with the same choices says nothing.
  if (n !== following || !r.ok || r.text === $('prompt-text').value) return;
  $('prompt-text').value = r.text;
  $('prompt-state').textContent = r.summary;
}

/** Wires Show prompt, Copy prompt and Insert into page. */
export function wirePrompt() {
  changes.addEventListener('grants', followTable);
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
      const r = await send(BRIDGE.INSERT_PROMPT, { tabId: state.tab.id, ...promptRequest() });
      $('prompt-state').textContent = r?.ok ? insertedNote(r.summary) : `Could not insert: ${r?.error}`;
    });
  });
}

/** What the page says once the prompt is in the chat input. */
export function insertedNote(summary) {
  return `Inserted into the page, not sent. ${summary || ''}`.trim();
}
