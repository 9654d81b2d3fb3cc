// gnosis-host methods for extension pages, through the service worker.
//
// The service worker owns the one native port (host.js); an extension page
// (the Side Panel) that needs a host method — relay.fetch for the model
// client, workspace.info for Settings — opens a runtime port named
// PORTS.HOST ('agent-host') per request. The worker runs the request on its native
// client and forwards the method's events ({event}), then the reply
// ({reply}) or a transport failure ({error}). Closing the port (the page's
// AbortSignal, the page going away) cancels the request, which for
// relay.fetch aborts the upstream request. Only the methods in
// PROXIED_METHODS pass; nothing is logged (relay.fetch carries the API key).
//
// Both halves take their chrome.* pieces as arguments, so they are tested
// with paired fake ports. A failure rejects with the native client's error
// shape (makeTransportError: .code and .advice).

import { makeTransportError } from './native_client.js';
import { CODES, TRANSPORT_CODES } from './core/codes.js';
import { PORTS } from './core/messages.js';
import { METHODS } from './core/methods.js';

/** Host methods an extension page may call through the worker. */
export const PROXIED_METHODS = Object.freeze([METHODS.RELAY_FETCH, METHODS.WORKSPACE_INFO, METHODS.WORKSPACE_LIST]);


/**
 * The page half: a request function with the native client's shape.
 * @param {{connect?: () => chrome.runtime.Port}} [deps]
 * @returns {(method: string, params?: object, opts?: {timeoutMs?: number, onEvent?: Function, signal?: AbortSignal}) => Promise<object>}
 */
export function createProxiedRequest({ connect = () => chrome.runtime.connect({ name: PORTS.HOST }) } = {}) {
  return function request(method, params, { timeoutMs, onEvent, signal } = {}) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(makeTransportError(CODES.CANCELLED, 'cancelled'));
      const port = connect();
      let settled = false;
      const finish = (fn, v) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        try { port.disconnect(); } catch { /* already gone */ }
        fn(v);
      };
      function onAbort() { finish(reject, makeTransportError(CODES.CANCELLED, 'cancelled')); }
      signal?.addEventListener('abort', onAbort, { once: true });
      port.onMessage.addListener((m) => {
        if (m?.event) { try { onEvent?.(m.event); } catch { /* the caller's handler must not break the stream */ } return; }
        if (m?.reply) finish(resolve, m.reply);
        else if (m?.error) finish(reject, makeTransportError(m.error.code || TRANSPORT_CODES.HOST_ERROR, m.error.message || 'host request failed', m.error.advice || '')); // the worker's advice, never a default for the code
      });
      port.onDisconnect.addListener(() => finish(reject, makeTransportError(TRANSPORT_CODES.HOST_DISCONNECTED, 'the extension\'s service worker went away during a host request')));
      try {
        port.postMessage({ method, params, timeoutMs });
      } catch {
        finish(reject, makeTransportError(TRANSPORT_CODES.HOST_DISCONNECTED, 'the extension\'s service worker refused the host request'));
      }
    });
  };
}

/**
 * The worker half: serves one connected port.
 * @param {chrome.runtime.Port} port
 * @param {{request: Function, trusted: boolean}} deps host.request, and whether port.sender is one of our pages
 */
export function serveProxiedPort(port, { request, trusted }) {
  if (!trusted) { port.disconnect(); return; }
  const ac = new AbortController();
  let started = false;
  let open = true;
  const post = (m) => { if (open) try { port.postMessage(m); } catch { open = false; } };
  port.onDisconnect.addListener(() => { open = false; ac.abort(); });
  port.onMessage.addListener((m) => {
    if (started) return;
    started = true;
    if (!m || !PROXIED_METHODS.includes(m.method)) {
      post({ error: { code: CODES.FORBIDDEN, message: `host method ${JSON.stringify(m?.method)} is not available to extension pages` } });
      return;
    }
    Promise.resolve()
      .then(() => request(m.method, m.params, { timeoutMs: m.timeoutMs, signal: ac.signal, onEvent: (event) => post({ event }) }))
      .then((reply) => post({ reply }), (err) => post({ error: { code: err?.code || TRANSPORT_CODES.HOST_ERROR, message: String(err?.message || err), advice: err?.advice } }));
  });
}
