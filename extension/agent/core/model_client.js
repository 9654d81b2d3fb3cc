// OpenAI-compatible Chat Completions client for the agent loop.
//
// One call = one completion, retried without limit on transient failures
// (retry_policy.js) until it succeeds or the caller's AbortSignal fires; an
// abort cancels the fetch in flight at once. Streams (SSE) when the server
// answers with text/event-stream, reads plain JSON otherwise, and keeps the
// usage figures. fetch, sleep and the clock are injected, so the module runs
// under node --test without a network or real waiting.

import { CodedError } from '../../shared/core/coded_error.js';
import { abortableSleep as sleepUnlessStopped } from './abortable_sleep.js';
import { backoffDelay, classifyStatus, localForbiddenMessage, parseRetryAfter } from './retry_policy.js';
import { errorDetail, maskKey, maskKeyStreaming } from './server_text.js';

/** An error the loop shows to the user; code is stable. */
export class ModelError extends CodedError {}

/** The error thrown when the caller stopped the request. */
export function stoppedError() {
  return new ModelError('stopped', 'stopped by the user');
}

/** Sleeps ms, or rejects with stoppedError as soon as signal aborts. */
export function abortableSleep(ms, signal) {
  return sleepUnlessStopped(ms, signal, stoppedError);
}

/**
 * Incremental SSE decoder: feed text chunks, get `data:` payloads.
 * @returns {{push(text:string): string[], end(): string[]}}
 */
export function createSseDecoder() {
  let buf = '';
  function drain(final) {
    const out = [];
    buf = buf.replace(/\r\n?/g, '\n');
    let idx;
    while ((idx = buf.indexOf('\n\n')) >= 0 || (final && buf.trim() !== '')) {
      const block = idx >= 0 ? buf.slice(0, idx) : buf;
      buf = idx >= 0 ? buf.slice(idx + 2) : '';
      const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, ''));
      if (data.length) out.push(data.join('\n'));
    }
    return out;
  }
  return { push: (text) => { buf += text; return drain(false); }, end: () => drain(true) };
}

/** Extracts the text of an assistant message whose content is a string or parts. */
export function messageText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : p?.text || '')).join('');
  return '';
}

class Retryable extends Error {}

// A transport error that says retrying cannot help (relay_client.js's
// RelayError for a URL the host's relay.allow does not cover, a missing
// host, …) ends the request instead of being retried forever.
function finalError(err) {
  const code = String(err.code || 'transport').toLowerCase();
  const text = err.advice ? `${err.message}. ${err.advice}` : String(err.message || err);
  return new ModelError(`relay_${code}`, `the request could not be sent: ${text}`);
}

/**
 * Creates a client.
 * @param {{fetch?:Function, sleep?:Function, now?:() => number, random?:() => number}} deps
 */
export function createModelClient(deps = {}) {
  const doFetch = deps.fetch || ((...a) => globalThis.fetch(...a));
  const sleep = deps.sleep || abortableSleep;
  const now = deps.now || (() => Date.now());
  const random = deps.random || Math.random;

  /** How often a streamed reply shown so far is worked out again (ms). */
  const STREAM_MASK_MS = 80;

  /**
   * Runs one completion.
   * @param {object} req {endpoint, apiKey, model, messages, temperature, loopback,
   *   timeoutMs, retryBaseMs, retryMaxMs, stream=true}
   * @param {{signal?:AbortSignal, onDelta?:(text:string, full:string) => void,
   *   onRetry?:(info:{attempt:number, delayMs:number, reason:string}) => void}} opts
   * @returns {Promise<{content:string, usage:object|null, attempts:number}>}
   */
  async function complete(req, opts = {}) {
    const key = req.apiKey;
    // What is shown while it streams: the key masked, and a tail that may begin it held back until it is
    // whole; worked out at most every STREAM_MASK_MS (masking reads the whole reply), and at the end.
    let shown = '';
    let maskedAt = -Infinity;
    const onDelta = opts.onDelta && ((_piece, full) => {
      if (now() - maskedAt < STREAM_MASK_MS) return;
      maskedAt = now();
      const safe = maskKeyStreaming(full, key);
      const piece = safe.startsWith(shown) ? safe.slice(shown.length) : safe;
      shown = safe;
      opts.onDelta(piece, safe);
    });
    try {
      const r = await completeRaw(req, { ...opts, onDelta });
      const content = maskKey(r.content, key);
      // What was held back shows once the reply is whole.
      if (onDelta && shown !== content) opts.onDelta(content.startsWith(shown) ? content.slice(shown.length) : content, content);
      return { ...r, content };
    } catch (err) {
      if (err instanceof ModelError) err.message = maskKey(err.message, key, { error: true });
      throw err;
    }
  }

  async function completeRaw(req, opts = {}) {
    const { signal } = opts;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw stoppedError();
      let retryAfterMs;
      let reason;
      try {
        return { ...(await once(req, opts)), attempts: attempt };
      } catch (err) {
        if (signal?.aborted) throw stoppedError();
        if (!(err instanceof Retryable)) throw err;
        reason = err.message;
        retryAfterMs = err.retryAfterMs;
      }
      const delayMs = backoffDelay(attempt, { baseMs: req.retryBaseMs ?? 1000, maxMs: req.retryMaxMs ?? 30000, retryAfterMs, random });
      opts.onRetry?.({ attempt, delayMs, reason: maskKey(reason, req.apiKey, { error: true }) });
      await sleep(delayMs, signal);
    }
  }

  async function once(req, { signal, onDelta }) {
    const ctl = new AbortController();
    const onAbort = () => ctl.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    let timer;
    const timeoutMs = req.timeoutMs ?? 120000;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => { timedOut = true; ctl.abort(); }, timeoutMs);
    };
    arm();
    try {
      const body = { model: req.model, messages: req.messages, temperature: req.temperature };
      if (req.stream !== false) {
        body.stream = true;
        body.stream_options = { include_usage: true };
      }
      const headers = { 'Content-Type': 'application/json', Accept: 'text/event-stream, application/json' };
      if (req.apiKey) headers.Authorization = `Bearer ${req.apiKey}`;
      let res;
      try {
        res = await doFetch(req.endpoint, { method: 'POST', headers, body: JSON.stringify(body), signal: ctl.signal });
      } catch (err) {
        if (signal?.aborted) throw stoppedError();
        if (err?.retryable === false) throw finalError(err);
        throw new Retryable(timedOut ? `no answer within ${timeoutMs} ms` : `network error: ${err?.message || err}`);
      }
      const verdict = classifyStatus(res.status, { loopback: Boolean(req.loopback) });
      if (verdict === 'retry') {
        const e = new Retryable(`HTTP ${res.status}`);
        e.retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), now());
        await res.body?.cancel?.().catch(() => {});
        throw e;
      }
      if (verdict === 'forbidden-local') throw new ModelError('forbidden_local', localForbiddenMessage(req.origin || 'chrome-extension://<extension id>'));
      if (verdict === 'fail') {
        const text = await readAll(res, arm).catch(() => '');
        const hint = HTTP_HINTS[res.status] ? ` (${HTTP_HINTS[res.status]})` : '';
        throw new ModelError(`http_${res.status}`, `the model server answered HTTP ${res.status}${hint}: ${errorDetail(text, req.apiKey)}`);
      }
      const type = res.headers.get('content-type') || '';
      if (type.includes('text/event-stream')) return await readStream(res, arm, onDelta);
      const text = await readAll(res, arm);
      let json;
      try { json = JSON.parse(text); } catch { throw new Retryable('the success reply was not JSON'); }
      const content = messageText(json?.choices?.[0]?.message?.content);
      if (!json?.choices?.[0]?.message) throw new ModelError('bad_reply', `the reply has no choices[0].message: ${errorDetail(text, req.apiKey)}`);
      onDelta?.(content, content);
      return { content, usage: json.usage || null };
    } catch (err) {
      if (signal?.aborted) throw stoppedError();
      if (timedOut && !(err instanceof ModelError)) throw new Retryable(`no answer within ${timeoutMs} ms`);
      if (err instanceof ModelError || err instanceof Retryable) throw err;
      if (err?.retryable === false) throw finalError(err);
      throw new Retryable(`network error: ${err?.message || err}`);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
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
  async function testConnection(req, opts = {}) {
    const { signal } = opts;
    const of = Math.max(1, Math.min(5, req.attempts ?? 3));
    const began = now();
    const deadline = Number.isFinite(req.budgetMs) ? began + req.budgetMs : Infinity;
    let failure;
    for (let attempt = 1; attempt <= of; attempt++) {
      if (signal?.aborted) throw stoppedError();
      const timeoutMs = Math.max(50, Math.min(req.timeoutMs ?? 15000, deadline - now()));
      opts.onProgress?.({ phase: 'sending', attempt, of, timeoutMs });
      const started = now();
      const ctl = new AbortController();
      const onAbort = () => ctl.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      let timedOut = false;
      const timer = setTimeout(() => { timedOut = true; ctl.abort(); }, timeoutMs);
      try {
        const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
        if (req.apiKey) headers.Authorization = `Bearer ${req.apiKey}`;
        const body = JSON.stringify({ model: req.model, temperature: 0, stream: false, messages: [{ role: 'user', content: 'Reply with the single word OK.' }] });
        const res = await doFetch(req.endpoint, { method: 'POST', headers, body, signal: ctl.signal });
        const text = await readAll(res, () => {});
        if (res.status >= 200 && res.status < 300) {
          let json = null;
          try { json = JSON.parse(text); } catch { /* judged below */ }
          const message = json?.choices?.[0]?.message;
          if (!message) failure = { ok: false, kind: 'bad_reply', text: `The server answered HTTP ${res.status}, but not with a chat completion: ${errorDetail(text, req.apiKey)}` };
          else return { ok: true, content: maskKey(messageText(message.content), req.apiKey), usage: json.usage || null, attempts: attempt, ms: now() - started };
        } else {
          failure = { ok: false, ...describeFailure({ status: res.status, detail: errorDetail(text, req.apiKey), loopback: req.loopback, origin: req.origin }) };
        }
      } catch (err) {
        if (signal?.aborted) throw stoppedError();
        const netError = timedOut ? undefined : await opts.netError?.(req.endpoint, started);
        failure = { ok: false, ...describeFailure({ timedOut, timeoutMs, netError, message: err?.message || String(err), advice: err?.advice }) };
        failure.text = maskKey(failure.text, req.apiKey, { error: true });
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
      failure.attempts = attempt;
      const delayMs = req.retryDelayMs ?? 1000;
      if (!RETRY_KINDS.has(failure.kind) || attempt === of || deadline - now() - delayMs < (req.minTryMs ?? MIN_TRY_MS)) break;
      opts.onProgress?.({ phase: 'retrying', attempt, of, delayMs, kind: failure.kind, text: failure.text });
      await sleep(delayMs, signal);
    }
    return { ...failure, ms: now() - began };
  }

  return { complete, testConnection };
}

/** The least of Test connection's budget worth another try. */
const MIN_TRY_MS = 2000;

/** Failure kinds a second try may fix. */
const RETRY_KINDS = new Set(['timeout', 'network', 'busy']);

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

const HTTP_HINTS = {
  400: 'the server refused the request; check the model name',
  401: 'the API key is missing, wrong or expired',
  403: 'the API key may not use this model or this endpoint',
  404: 'no such endpoint or model; check the API URL and the model name',
  405: 'the URL does not accept chat completions; check the API URL',
  408: 'the server timed out',
  429: 'rate limited or out of quota',
};

async function readAll(res, onProgress) {
  if (!res.body?.getReader) return res.text();
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let out = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    onProgress();
    out += dec.decode(value, { stream: true });
  }
  return out + dec.decode();
}

async function readStream(res, onProgress, onDelta) {
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  const sse = createSseDecoder();
  let content = '';
  let usage = null;
  let sawChoice = false;
  const handle = (payloads) => {
    for (const p of payloads) {
      if (p.trim() === '[DONE]') continue;
      let j;
      try { j = JSON.parse(p); } catch { throw new Retryable('a streamed event was not JSON'); }
      if (j.usage) usage = j.usage;
      const choice = j.choices?.[0];
      if (!choice) continue;
      sawChoice = true;
      const piece = messageText(choice.delta?.content ?? choice.message?.content);
      if (piece) {
        content += piece;
        onDelta?.(piece, content);
      }
    }
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    onProgress();
    handle(sse.push(dec.decode(value, { stream: true })));
  }
  handle(sse.push(dec.decode()));
  handle(sse.end());
  if (!sawChoice) throw new Retryable('the stream ended without a reply');
  return { content, usage };
}
