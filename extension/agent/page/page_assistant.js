// The Page Assistant's content script: it places the bar at the bottom of web
// pages while the setting is on and a Side Panel is open in the tab's window,
// and removes it otherwise. That is all it does: it never sees the task text
// nor the run's events, and it sends no task.
//
// The bar is an extension page (agent/frame/page_assistant_frame.html) in an iframe.
// Its document lives in the extension's process: the page cannot script it,
// its key and input events never reach the page's listeners, and
// document.execCommand in the page cannot touch its input. The frame talks to
// the service worker itself (its own port and chrome.runtime.sendMessage, the
// worker reading the tab from sender.tab).
//
// The frame's page is web-accessible, so a page can embed a copy of it; only
// the frame placed here counts. Before placing it, this script asks the
// worker for a one-time token (pageAssistant.frameToken) and, once the frame
// has loaded, posts the token to that frame's window alone, with the
// extension's origin as the target (no page script can read it); the frame
// hands it to the worker on its port, and only then gets the setting, the
// panel state and the run, and may send tasks.
//
// The iframe sits in a CLOSED shadow root on a host element whose inline
// !important styles win over page CSS. Its size depends only on the window's
// width, never on what the bar shows, so the page cannot tell from its layout
// whether a task was typed, sent or is running.
//
// The frame page is web-accessible to http(s) pages at its fixed URL, so a
// page can tell that Gnosis is installed by loading it. Its dynamic URL
// (use_dynamic_url) would hide that, but chrome.debugger detaches from the tab
// (reason target_closed) when a frame of a chrome-extension://<dynamic id>
// URL appears while it is attached, which ends a run as soon as the agent
// navigates the tab (checked in Chromium 156). A page that embeds the frame
// itself gets a genuine bar: it cannot read or drive it either.
//
// A page may hide or remove the bar: it is then simply gone until the setting
// or the panel changes again (nothing watches for it to put it back). An
// iframe navigated away from the bar (a page reaching it through a frame
// reference) is removed the same way.
//
// An ES module, joined with what it imports into page_assistant.bundle.js
// (tools/content_bundle.mjs), the registered content script, also injected
// into tabs that were already open: it runs at most once per document
// however often it is injected.

import { FRAME_PAGE } from '../core/page_assistant_settings.js';
import { PAGE_ASSISTANT, PAGE_ASSISTANT_EVENT } from '../../shared/core/messages.js';

// Fixed size: the frame lays its content out inside it (frame/page_assistant_frame.css).
const HOST_STYLE = 'all: initial !important; display: block !important; position: fixed !important; z-index: 2147483647 !important;'
  + ' left: 50% !important; bottom: 0 !important; transform: translateX(-50%) !important;'
  + ' width: min(720px, 100%) !important; height: 148px !important; margin: 0 !important; padding: 0 !important; border: 0 !important;'
  + ' pointer-events: auto !important; opacity: 1 !important; filter: none !important; visibility: visible !important;';
const CSS = `
:host { all: initial; }
iframe { all: initial; display: block; width: 100%; height: 100%; border: 0; margin: 0; padding: 0; background: transparent; color-scheme: light dark; }
`;

let enabled = false;
let panelOpen = false;
let shown = false;
let host = null;

function build() {
  const h = document.createElement('gnosis-page-assistant');
  h.setAttribute('style', HOST_STYLE);
  const root = h.attachShadow({ mode: 'closed' });
  const style = document.createElement('style');
  style.textContent = CSS;
  const frame = document.createElement('iframe');
  frame.title = 'Gnosis Page Assistant';
  frame.src = chrome.runtime.getURL(FRAME_PAGE);
  const token = chrome.runtime.sendMessage({ type: PAGE_ASSISTANT.FRAME_TOKEN }).catch(() => null);
  const extensionOrigin = new URL(chrome.runtime.getURL('')).origin;
  // The first load is the bar; any later one means something navigated the frame away from it.
  let loads = 0;
  frame.addEventListener('load', () => {
    loads += 1;
    if (loads > 1) {
      remove(h);
      return;
    }
    token.then((r) => {
      if (r?.ok && typeof r.token === 'string') frame.contentWindow?.postMessage({ type: PAGE_ASSISTANT.FRAME_TOKEN, token: r.token }, extensionOrigin);
    });
  });
  root.append(style, frame);
  return h;
}

function remove(h) {
  h.remove();
  if (host === h) host = null;
}

function render() {
  const visible = enabled && panelOpen;
  if (visible === shown) return;
  shown = visible;
  if (host) remove(host);
  if (!visible) return;
  host = build();
  // Outside <body>, which single-page apps often replace wholesale.
  document.documentElement.append(host);
}

function apply(event) {
  if (event.type === 'settings') enabled = event.enabled === true;
  else if (event.type === 'panel') panelOpen = event.open === true;
  else return;
  render();
}

chrome.runtime.onMessage.addListener((m, sender) => {
  if (sender?.id !== chrome.runtime.id || sender.tab) return; // only the extension itself (the worker)
  if (m?.type === PAGE_ASSISTANT_EVENT && m.event && typeof m.event.type === 'string') apply(m.event);
});
chrome.runtime.sendMessage({ type: PAGE_ASSISTANT.STATE }).then((r) => {
  if (!r?.ok) return;
  panelOpen = r.panelOpen === true;
  apply({ type: 'settings', enabled: r.enabled });
}).catch(() => {});
