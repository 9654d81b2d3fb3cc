// A banner for the pages that use the host without managing it (the Side
// Panel): when the host's protocol does not fit this extension's, it says
// which side is older and links the setup page, which says how to update.
// Nothing else is attempted against such a host (the worker refuses it).
// Extension pages only.
import { incompatibility } from './core/protocol.js';
import { HOST_CARD } from './core/messages.js';
import { h, send } from './page.js';
import { pollWhileVisible } from './core/poll.js';

/**
 * Keeps el (hidden by default) showing whether the host fits, checking now
 * and every intervalMs.
 * @param {HTMLElement} el
 * @param {{intervalMs?: number}} [opts]
 */
export function watchHostFit(el, { intervalMs = 5000 } = {}) {
  const extensionVersion = chrome.runtime.getManifest().version;
  let first = true;
  const check = async () => {
    const r = await send(HOST_CARD.STATUS, { refresh: first });
    first = false;
    const why = r?.health?.ok ? incompatibility(r.health, { extensionVersion }) : null;
    el.hidden = !why;
    if (why) {
      el.replaceChildren(h('strong', { text: `${why.title}.` }), ' ', why.message, ' ',
        h('a', { href: chrome.runtime.getURL('bridge/setup/setup.html'), target: '_blank', text: 'How to update' }));
    }
  };
  check().catch(() => {});
  pollWhileVisible(check, intervalMs);
}
