// fetch() through the host, for model gateways that reject the
// chrome-extension:// origin (a local Ollama answers 403): the host's
// relay.fetch method (docs/host-methods.md) makes the request without an
// Origin header and streams the body back as relay.head / relay.data events.
//
// createRelayFetch returns a function with fetch's shape: it resolves with a
// real Response once the head arrives, and the Response's body streams the
// data events as they come, so Server-Sent Events work unchanged and the
// model client can use it in place of fetch. Aborting the signal (or
// cancelling the body) sends the protocol's cancel, which aborts the
// upstream request.
//
// Pure module: request is injected (host.request of the native client).

import { CodedError } from '../../shared/core/coded_error.js';
import { base64ToBytes } from '../../shared/core/base64.js';
import { CODES, TRANSPORT_CODES } from '../../shared/core/codes.js';
import { METHODS } from '../../shared/core/methods.js';

/** Host error codes after which retrying cannot help (configuration, policy, bad request). */
const FINAL_CODES = new Set([CODES.FORBIDDEN, CODES.NOT_CONFIGURED, CODES.INVALID_REQUEST, CODES.UNKNOWN_METHOD, TRANSPORT_CODES.HOST_NOT_FOUND, TRANSPORT_CODES.HOST_FORBIDDEN]);

/**
 * A relay failure before or during the response. .code is the host's error
 * code (EXECUTION_ERROR for an upstream network failure, FORBIDDEN for a URL
 * the host's relay.allow does not cover, …) or a transport code;
 * .retryable says whether the model client's retry policy applies.
 */
export class RelayError extends CodedError {
  constructor(code, message, advice) {
    super(code, message);
    this.retryable = !FINAL_CODES.has(code);
    if (advice) this.advice = advice;
  }
}

function abortError() {
  return new DOMException('The operation was aborted.', 'AbortError');
}

/** Turns fetch-style headers (Headers, [[k, v]], or an object) into a plain object. */
export function plainHeaders(h) {
  const out = {};
  if (!h) return out;
  if (typeof h.forEach === 'function' && !Array.isArray(h)) h.forEach((v, k) => { out[k] = v; });
  else if (Array.isArray(h)) for (const [k, v] of h) out[k] = String(v);
  else for (const [k, v] of Object.entries(h)) out[k] = String(v);
  return out;
}

function bodyText(body) {
  if (body == null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return new TextDecoder().decode(body);
  return String(body);
}

function makeResponse(status, headers, body, url) {
  const h = new Headers();
  for (const [k, v] of Object.entries(headers || {})) {
    try { h.append(k, v); } catch { /* a header the Response class refuses is left out */ }
  }
  const nullBody = status === 204 || status === 205 || status === 304;
  const res = new Response(nullBody ? null : body, { status, headers: h });
  Object.defineProperty(res, 'url', { value: url });
  return res;
}


/**
 * Creates a fetch-like function that goes through the host.
 * @param {{request: Function, timeoutMs?: number, binary?: boolean}} deps
 *   timeoutMs 0 (default) leaves time limits to the caller's signal;
 *   binary asks for base64 pieces (non-UTF-8 bodies).
 * @returns {(url: string, init?: {method?: string, headers?: object, body?: string, signal?: AbortSignal}) => Promise<Response>}
 */
export function createRelayFetch({ request, timeoutMs = 0, binary = false }) {
  return function relayFetch(url, init = {}) {
    const { signal } = init;
    if (signal?.aborted) return Promise.reject(abortError());
    return new Promise((resolve, reject) => {
      const encoder = new TextEncoder();
      const ac = new AbortController();
      let controller;
      let head = false;
      let finished = false;
      const body = new ReadableStream({
        start(c) { controller = c; },
        cancel() { if (!finished) ac.abort(); },
      });
      const onAbort = () => ac.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const fail = (err) => {
        if (!head) reject(err);
        else try { controller.error(err); } catch { /* already closed */ }
      };
      const onEvent = (e) => {
        if (e.event === 'relay.head' && !head) {
          head = true;
          resolve(makeResponse(e.status, e.headers, body, url));
        } else if (e.event === 'relay.data' && typeof e.data === 'string') {
          try { controller.enqueue(binary ? base64ToBytes(e.data) : encoder.encode(e.data)); } catch { /* the reader cancelled */ }
        }
      };
      const params = { url: String(url), method: (init.method || 'GET').toUpperCase(), headers: plainHeaders(init.headers) };
      const text = bodyText(init.body);
      if (text !== undefined) params.body = text;
      if (binary) params.encoding = 'base64';
      request(METHODS.RELAY_FETCH, params, { timeoutMs, onEvent, signal: ac.signal }).then(
        (reply) => {
          finished = true;
          if (reply && reply.ok) {
            if (!head) {
              head = true;
              resolve(makeResponse(reply.status, reply.headers, body, url));
            }
            try { controller.close(); } catch { /* the reader cancelled */ }
            return;
          }
          fail(ac.signal.aborted ? abortError() : new RelayError(reply?.code || TRANSPORT_CODES.HOST_ERROR, reply?.message || 'relay.fetch failed'));
        },
        (err) => {
          finished = true;
          fail(ac.signal.aborted ? abortError() : new RelayError(err?.code || TRANSPORT_CODES.HOST_ERROR, String(err?.message || err), err?.advice));
        },
      ).finally(() => signal?.removeEventListener('abort', onAbort));
    });
  };
}
