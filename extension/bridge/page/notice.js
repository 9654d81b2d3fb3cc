// The chat bridge's content script, its notices: a line at the bottom right
// of the page in a shadow root (so the page's CSS cannot hide or restyle it),
// gone after ten seconds. Errors are announced as alerts.

let host = null;

/** Shows text; kind 'error' or 'info'. */
function notice(text, kind = 'info') {
  if (!host?.isConnected) {
    host = document.createElement('gnosis-notice');
    host.attachShadow({ mode: 'open' });
    document.documentElement.appendChild(host);
  }
  const box = document.createElement('div');
  box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  box.textContent = text;
  box.style.cssText = `position:fixed;right:12px;bottom:12px;z-index:2147483647;max-width:420px;padding:10px 14px;
    font:13px/1.4 system-ui,sans-serif;color:#fff;border-radius:6px;box-shadow:0 2px 8px #0005;
    background:${kind === 'error' ? '#b42318' : '#1f2328'}`;
  host.shadowRoot.replaceChildren(box);
  setTimeout(() => box.remove(), 10_000);
}

export { notice };
