// Test connection (the panel's setup card and Settings): one small
// completion, tried a few times within a budget, and every way it can fail
// named in words: a refused connection, DNS, TLS, a timeout, each HTTP
// status with its hint. Built on the request steps of model_reply.js; the
// client (model_client.js) hands out its fetch, sleep and clock. Pure.

import { completionInit, deadline, HTTP_HINTS, messageText, readAll, stoppedError } from './model_reply.js';
import { localForbiddenMessage } from './retry_policy.js';
import { errorDetail, maskKey } from './server_text.js';

/** The least of Test connection's budget worth another try. */
const MIN_TRY_MS = 2000;

/** Failure kinds a second try may fix. */
const RETRY_KINDS = new Set(['timeout', 'network', 'busy']);

const PROBE = Object.freeze([{ role: 'user', content: 'Reply with the single word OK.' }]);

/**
 * Names why a request to the model server failed, from what is known: the
 * HTTP status, the browser's net::ERR_… name (chrome.webRequest), the host
 * relay's error text (Go's net errors), or that our own time limit passed.
 * Pure. kind is one of refused, dns, tls, timeout, http, busy, forbidden_local,
 * unsafe_port, network.
 * @returns {{kind:string, text:string, status?:number}}
 */
export function describeFailure({ status, detail, loopback, origin, timedOut, timeoutMs, netError, message, advice } = {}) {
  if (Number.isInteger(status)) {
    if (status === 403 && loopback) return { kind: 'forbidden_local', status, text: localForbiddenMessage(origin || 'chrome-extension://<extension id>') };
    const hint = HTTP_HINTS[status] || (status >= 500 ? 'the server failed; try again later or check its log' : '');
    const kind = status === 408 || status === 429 || status >= 500 ? 'busy' : 'http';
    return { kind, status, text: `The server answered HTTP ${status}${hint ? ` (${hint})` : ''}${detail ? `: ${detail}` : ''}.` };
  }
  if (timedOut) return { kind: 'timeout', text: `No answer within ${Math.round(timeoutMs / 100) / 10} s: the server accepted the connection but did not reply.` };
  const said = `${netError || ''} ${message || ''}`;
  if (/ERR_CONNECTION_REFUSED|connection refused|ECONNREFUSED/i.test(said)) return { kind: 'refused', text: 'Connection refused: nothing is listening at that address and port. Is the server running, and is the port right?' };
  if (/ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED|no such host|ENOTFOUND|server misbehaving/i.test(said)) return { kind: 'dns', text: 'The server name could not be resolved (DNS). Check the host name in the API URL.' };
  if (/ERR_CERT_|ERR_SSL_|ERR_BAD_SSL|x509:|tls:|certificate/i.test(said)) return { kind: 'tls', text: `The secure connection failed (TLS: ${netError ? netError.replace(/^net::/, '') : 'certificate or handshake refused'}). The server's certificate is not trusted by this browser, or it does not speak HTTPS on that port.` };
  if (/ERR_TIMED_OUT|ERR_CONNECTION_TIMED_OUT|deadline exceeded|Client\.Timeout|i\/o timeout/i.test(said)) return { kind: 'timeout', text: 'The connection timed out: the server did not respond.' };
  if (/ERR_UNSAFE_PORT/i.test(said)) return { kind: 'unsafe_port', text: 'The browser refuses to connect to that port (it is on its list of unsafe ports). Use another port.' };
  const why = netError ? netError.replace(/^net::/, '') : String(message || 'the request failed');
  return { kind: 'network', text: `The request could not be sent: ${why}${advice ? `. ${advice}` : ''}.` };
}

/**
 * Test connection with the client's pieces.
 * @param {{doFetch:Function, sleep:Function, now:() => number}} deps
 */
export function createConnectionTest({ doFetch, sleep, now }) {
  /** One try: {ok:true, content, usage} or a failure {ok:false, kind, text, status?}. */
  async function tryOnce(req, timeoutMs, opts) {
    const { signal } = opts;
    const started = now();
    const d = deadline(timeoutMs, signal);
    try {
      const res = await doFetch(req.endpoint, completionInit({ ...req, temperature: 0, stream: false, messages: PROBE }, d.signal));
      const text = await readAll(res);
      if (res.status < 200 || res.status >= 300) {
        return { ok: false, ...describeFailure({ status: res.status, detail: errorDetail(text, req.apiKey), loopback: req.loopback, origin: req.origin }) };
      }
      let json = null;
      try { json = JSON.parse(text); } catch { /* judged below */ }
      const message = json?.choices?.[0]?.message;
      if (!message) return { ok: false, kind: 'bad_reply', text: `The server answered HTTP ${res.status}, but not with a chat completion: ${errorDetail(text, req.apiKey)}` };
      return { ok: true, content: maskKey(messageText(message.content), req.apiKey), usage: json.usage || null, ms: now() - started };
    } catch (err) {
      if (signal?.aborted) throw stoppedError();
      const netError = d.timedOut ? undefined : await opts.netError?.(req.endpoint, started);
      const failure = { ok: false, ...describeFailure({ timedOut: d.timedOut, timeoutMs, netError, message: err?.message || String(err), advice: err?.advice }) };
      failure.text = maskKey(failure.text, req.apiKey, { error: true });
      return failure;
    } finally {
      d.dispose();
    }
  }

  /**
   * Test connection: one small completion, at most `attempts` tries, each
   * bounded by `timeoutMs`, all of them (with the waits between) by
   * `budgetMs`: a try starts only when at least `minTryMs` (MIN_TRY_MS) of
   * the budget is left, and takes no more than what is left. Failures that retrying cannot
   * fix (refused, DNS, TLS, an HTTP status other than 408/429/5xx) end it at
   * the first try. The signal cancels it at any moment (stoppedError).
   * Never throws for a failed connection: the result says what happened.
   * @param {object} req {endpoint, apiKey, model, loopback, origin, timeoutMs, attempts=3, retryDelayMs=1000, budgetMs, minTryMs}
   * @param {{signal?:AbortSignal, onProgress?:(p:{phase:'sending'|'retrying', attempt:number, of:number,
   *   delayMs?:number, kind?:string, text?:string}) => void,
   *   netError?:(url:string, sinceMs:number) => Promise<string|undefined>}} opts
   *   netError reports the browser's own error name for a failed fetch (net::ERR_…), when known.
   * @returns {Promise<{ok:true, content:string, usage:object|null, attempts:number, ms:number}
   *   | {ok:false, kind:string, text:string, status?:number, attempts:number, ms:number}>}
   */
  return async function testConnection(req, opts = {}) {
    const { signal } = opts;
    const of = Math.max(1, Math.min(5, req.attempts ?? 3));
    const began = now();
    const budgetEnd = Number.isFinite(req.budgetMs) ? began + req.budgetMs : Infinity;
    let failure;
    for (let attempt = 1; attempt <= of; attempt++) {
      if (signal?.aborted) throw stoppedError();
      const timeoutMs = Math.max(50, Math.min(req.timeoutMs ?? 15000, budgetEnd - now()));
      opts.onProgress?.({ phase: 'sending', attempt, of, timeoutMs });
      const r = await tryOnce(req, timeoutMs, opts);
      if (r.ok) return { ...r, attempts: attempt };
      failure = { ...r, attempts: attempt };
      const delayMs = req.retryDelayMs ?? 1000;
      if (!RETRY_KINDS.has(failure.kind) || attempt === of || budgetEnd - now() - delayMs < (req.minTryMs ?? MIN_TRY_MS)) break;
      opts.onProgress?.({ phase: 'retrying', attempt, of, delayMs, kind: failure.kind, text: failure.text });
      await sleep(delayMs, signal);
    }
    return { ...failure, ms: now() - began };
  };
}
