// OpenAI-compatible Chat Completions client for the agent loop.
//
// One call = one completion, retried without limit on transient failures
// (retry_policy.js) until it succeeds or the caller's AbortSignal fires; an
// abort cancels the fetch in flight at once. Streams (SSE) when the server
// answers with text/event-stream, reads plain JSON otherwise, and keeps the
// usage figures. fetch, sleep and the clock are injected, so the module runs
// under node --test without a network or real waiting.

import { CodedError } from '../shared/coded_error.js';
import { backoffDelay, classifyStatus, localForbiddenMessage, parseRetryAfter } from './retry_policy.js';

/** An error the loop shows to the user; code is stable. */
export class ModelError extends CodedError {}

/** The error thrown when the caller stopped the request. */
export function stoppedError() {
  return new ModelError('stopped', 'stopped by the user');
}

/** Sleeps ms, or rejects with stoppedError as soon as signal aborts. */
export function abortableSleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(stoppedError());
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    function onAbort() { clearTimeout(t); reject(stoppedError()); }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
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

  /**
   * Runs one completion.
   * @param {object} req {endpoint, apiKey, model, messages, temperature, loopback,
   *   timeoutMs, retryBaseMs, retryMaxMs, stream=true}
   * @param {{signal?:AbortSignal, onDelta?:(text:string, full:string) => void,
   *   onRetry?:(info:{attempt:number, delayMs:number, reason:string}) => void}} opts
   * @returns {Promise<{content:string, usage:object|null, attempts:number}>}
   */
  async function complete(req, opts = {}) {
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
      opts.onRetry?.({ attempt, delayMs, reason });
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
        throw new ModelError(`http_${res.status}`, `the model server answered HTTP ${res.status}: ${errorDetail(text)}`);
      }
      const type = res.headers.get('content-type') || '';
      if (type.includes('text/event-stream')) return await readStream(res, arm, onDelta);
      const text = await readAll(res, arm);
      let json;
      try { json = JSON.parse(text); } catch { throw new Retryable('the success reply was not JSON'); }
      const content = messageText(json?.choices?.[0]?.message?.content);
      if (!json?.choices?.[0]?.message) throw new ModelError('bad_reply', `the reply has no choices[0].message: ${errorDetail(text)}`);
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

  return { complete };
}

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

function errorDetail(text) {
  try {
    const j = JSON.parse(text);
    const m = j?.error?.message || j?.message || j?.error;
    if (typeof m === 'string') return m.slice(0, 300);
  } catch { /* not JSON */ }
  return String(text || '(empty body)').slice(0, 300);
}
