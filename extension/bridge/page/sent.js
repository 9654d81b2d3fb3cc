// The chat bridge's content script, whether a send happened: after the bridge
// clicks the send button (or presses Enter in the input), the send counts only once the page shows it — the
// input no longer holds the text, a new message with the text is on the page,
// or the reply started (the streaming sign shows). Otherwise it says why not:
// the selector points at something that is not a button, or the page did not
// take the click.

import { BUTTON } from '../core/pick_rules.js';
import { norm, queryAll, tick, visible } from './dom.js';
import { pageState } from './page_state.js';

const PROOF_MS = 4000;

const held = (editor, text) => !!editor?.isConnected && norm(editor.matches('textarea, input') ? editor.value : editor.innerText).includes(text);

/** Whether an element added since the click, outside the input, holds the text. */
function newMessage(editor, text, added) {
  return added.some((el) => el.isConnected && !editor?.contains(el) && !el.contains(editor) && norm(el.textContent).includes(text));
}

/** How the clicked element reads in an error: <form class="…"> holding the button “Send” (disabled). */
function describe(el) {
  const tag = `<${el.localName}${el.classList.length ? ` class="${[...el.classList].slice(0, 3).join(' ')}"` : ''}>`;
  const inner = el.querySelector(BUTTON);
  if (!inner) return tag;
  const name = norm(inner.getAttribute('aria-label') || inner.innerText || '').slice(0, 40);
  return `${tag}, which holds the button${name ? ` “${name}”` : ''}${inner.disabled ? ' (disabled)' : ''}`;
}

/**
 * Clicks button and waits until the page shows the text went out.
 * Resolves {ok: true, how} or {ok: false, error}.
 */
function clickAndConfirm(button, editor, fullText) {
  return actAndConfirm(() => button.click(), editor, fullText, () => {
    const isButton = button.matches(BUTTON);
    return isButton
      ? `the page did not take the message: after the click on the Send button the result is still in the input and no message or reply appeared within ${PROOF_MS / 1000} s`
      : `the Send button selector matches ${describe(button)}, not a button, and clicking it sent nothing: the result is still in the input; Pick the send button again`;
  });
}

/** Presses Enter in the chat input (as the person sends there) and waits until the page shows the text went out. */
function enterAndConfirm(editor, fullText) {
  return actAndConfirm(() => {
    editor.focus();
    for (const type of ['keydown', 'keypress', 'keyup']) {
      editor.dispatchEvent(new KeyboardEvent(type, { key: 'Enter', code: 'Enter', keyCode: 13, which: 13, bubbles: true, cancelable: true }));
    }
  }, editor, fullText, () => `the page did not take the message: after Enter in the input the result is still there and no message or reply appeared within ${PROOF_MS / 1000} s; Pick the send button instead`);
}

async function actAndConfirm(act, editor, fullText, failure) {
  const text = norm(fullText).slice(0, 120);
  const added = [];
  const observer = new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) if (n instanceof Element) added.push(n);
  });
  observer.observe(document.body, { childList: true, subtree: true });
  const streamingCss = pageState.config?.streaming;
  try {
    act();
    const deadline = Date.now() + PROOF_MS;
    for (;;) {
      await tick(100);
      if (!held(editor, text)) return { ok: true, how: 'the input was emptied' };
      if (newMessage(editor, text, added)) return { ok: true, how: 'a new message holds the text' };
      if (streamingCss && queryAll(streamingCss).some(visible)) return { ok: true, how: 'the reply started' };
      if (Date.now() > deadline) break;
    }
  } finally {
    observer.disconnect();
  }
  return { ok: false, error: failure() };
}

export { clickAndConfirm, enterAndConfirm };
