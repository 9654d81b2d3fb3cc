// The share control: a strip at the top of the side panel (and of Firefox's
// sidebar) about the tab in front of this window. For each armed chat site
// it says whether the tab is shared with it — "Shared with chat.example",
// with Stop sharing beside it — or offers "Share with chat.example", or says
// why this tab cannot be shared (a browser page, the chat itself, an
// extension store, …). It follows the tab in front, the armed sites and the
// shares as they change. The worker decides and keeps the shares
// (bridge/worker/browser_tabs.js, BROWSER_SHARE messages, which it takes
// from extension pages only); this is the view.
import { BROWSER_SHARE } from './core/messages.js';
import { SHARES_KEY } from '../bridge/core/browser_shares.js';

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * The tab the control is about: the one in front of this window; when this
 * page is itself a tab (the side panel's page opened as one), the tab of
 * its window used last before it.
 */
async function tabInFront() {
  const self = await chrome.tabs.getCurrent?.().catch(() => null);
  const tabs = await chrome.tabs.query({ currentWindow: true }).catch(() => []);
  if (!self) return tabs.find((t) => t.active) || null;
  return tabs.filter((t) => t.id !== self.id).sort((a, b) => (b.lastAccessed || 0) - (a.lastAccessed || 0))[0] || null;
}

/**
 * Mounts the control in container (hidden while no chat site is armed and
 * the tab is shared with none).
 * @param {HTMLElement} container
 * @param {{send?: (m: object) => Promise<object>}} [o]
 * @returns {{refresh: () => Promise<void>}}
 */
export function createShareCard(container, { send = (m) => chrome.runtime.sendMessage(m) } = {}) {
  let tabId = null;
  let windowId = null;
  let busy = false;

  function render(view, error = '') {
    const sites = view?.sites || [];
    container.hidden = !sites.length;
    const rows = sites.map((s) => {
      const row = el('div', 'tab-share-row');
      row.dataset.origin = s.origin;
      if (s.shared) {
        const chip = el('span', 'chip info', `Shared with ${s.name}`);
        chip.title = `Its model can see this tab and act on it as you allow on ${s.origin}`;
        const stop = el('button', 'small', 'Stop sharing');
        stop.type = 'button';
        stop.setAttribute('aria-label', `Stop sharing this tab with ${s.name}`);
        stop.addEventListener('click', () => set(s.origin, false));
        row.append(chip, stop);
      } else if (!s.why && s.armed) {
        const share = el('button', 'small', `Share with ${s.name}`);
        share.type = 'button';
        share.title = `Let the model on ${s.origin} see this tab and act on it, as you allow there`;
        share.addEventListener('click', () => set(s.origin, true));
        row.append(share);
      } else {
        row.append(el('span', 'tab-share-why', s.why ? `Not with ${s.name}: ${s.why}` : `${s.name} is stopped`));
      }
      return row;
    });
    const head = el('span', 'tab-share-label', 'This tab');
    const note = el('p', 'tab-share-error error-text', error);
    note.hidden = !error;
    note.setAttribute('role', 'status');
    container.replaceChildren(head, ...rows, note);
    container.dataset.ready = 'true';
  }

  async function set(origin, share) {
    if (busy || tabId === null) return;
    busy = true;
    for (const b of container.querySelectorAll('button')) b.disabled = true;
    const r = await send({ type: BROWSER_SHARE.SET, tabId, origin, share }).catch((err) => ({ ok: false, error: String(err?.message || err) }));
    busy = false;
    if (r?.ok) render(r);
    else await refresh(r?.error || 'no answer from the extension');
  }

  async function refresh(error = '') {
    const tab = await tabInFront();
    tabId = tab?.id ?? null;
    windowId = tab?.windowId ?? windowId;
    const view = await send({ type: BROWSER_SHARE.VIEW, tabId }).catch(() => null);
    render(view?.ok ? view : null, error);
  }

  chrome.tabs.onActivated.addListener((info) => { if (windowId === null || info.windowId === windowId) refresh(); });
  chrome.tabs.onUpdated.addListener((id, change) => { if (id === tabId && (change.url !== undefined || change.status === 'complete')) refresh(); });
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'session' && (changes.armed || changes[SHARES_KEY]) && !busy) refresh();
  });
  refresh();
  return { refresh };
}
