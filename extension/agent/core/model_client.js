// OpenAI-compatible Chat Completions client for the agent loop.
//
// One call = one completion, retried without limit on transient failures
// (retry_policy.js: 408, 409, 425, 429, 5xx, timeouts, network errors, a
// success body that is not JSON, an error a server sends inside a 200
// stream unless it says the request itself is at fault) until it succeeds
// or the caller's AbortSignal fires; an abort cancels the fetch in flight at
// once. A try is three steps (model_reply.js): send the request under a
// deadline, judge the status, read the reply (an SSE stream when the server
// streams, JSON otherwise, with the usage figures). Test connection is
// connection_test.js. fetch, sleep and the clock are injected, so the module
// runs under node --test without a network or real waiting.

import { abortableSleep as sleepUnlessStopped } from '../../shared/core/abortable_sleep.js';
import { backoffDelay, classifyStatus, localForbiddenMessage, parseRetryAfter } from './retry_policy.js';
import { errorDetail, maskKey, maskKeyStreaming } from './server_text.js';
import { completionInit, deadline, HTTP_HINTS, ModelError, readAll, readJson, readStream, Retryable, stoppedError } from './model_reply.js';
import { createConnectionTest } from './connection_test.js';

export { createSseDecoder, messageText, ModelError, stoppedError } from './model_reply.js';
export { describeFailure } from './connection_test.js';

/** Sleeps ms, or rejects with stoppedError as soon as signal aborts. */
export function abortableSleep(ms, signal) {
  return sleepUnlessStopped(ms, signal, stoppedError);
}

// A transport error that says retrying cannot help (relay_client.js's
// RelayError for a URL the host's relay.allow does not cover, a missing
// host, …) ends the request instead of being retried forever.
function finalError(err) {
  const code = String(err.code || 'transport').toLowerCase();
  const text = err.advice ? `${err.message}. ${err.advice}` : String(err.message || err);
  return new ModelError(`relay_${code}`, `the request could not be sent: ${text}`);
}

/** A fetch that failed before any reply: final when the transport says so, else tried again. */
function sendFailure(err, d, timeoutMs) {
  if (err?.retryable === false) return finalError(err);
  return new Retryable(d.timedOut ? `no answer within ${timeoutMs} ms` : `network error: ${err?.message || err}`);
}

/**
 * Judges a reply's status before its body is read: a retryable status is a
 * Retryable (with the server's Retry-After), a 403 from this machine says
 * how to allow the extension, any other failure is final with the server's words.
 */
async function judgeStatus(res, req, { onProgress, nowMs }) {
  const verdict = classifyStatus(res.status, { loopback: Boolean(req.loopback) });
  if (verdict === 'ok') return;
  if (verdict === 'retry') {
    await res.body?.cancel?.().catch(() => {});
    throw new Retryable(`HTTP ${res.status}`, parseRetryAfter(res.headers.get('retry-after'), nowMs));
  }
  if (verdict === 'forbidden-local') throw new ModelError('forbidden_local', localForbiddenMessage(req.origin || 'chrome-extension://<extension id>'));
  const text = await readAll(res, onProgress).catch(() => '');
  const hint = HTTP_HINTS[res.status] ? ` (${HTTP_HINTS[res.status]})` : '';
  throw new ModelError(`http_${res.status}`, `the model server answered HTTP ${res.status}${hint}: ${errorDetail(text, req.apiKey)}`);
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

  /** One try: send, judge, read; a ModelError or Retryable when it fails. */
  async function once(req, { signal, onDelta }) {
    const timeoutMs = req.timeoutMs ?? 120000;
    const d = deadline(timeoutMs, signal);
    const read = { onProgress: () => d.arm(), onDelta, key: req.apiKey, nowMs: now() };
    try {
      let res;
      try {
        res = await doFetch(req.endpoint, completionInit(req, d.signal));
      } catch (err) {
        if (signal?.aborted) throw stoppedError();
        throw sendFailure(err, d, timeoutMs);
      }
      await judgeStatus(res, req, read);
      const type = res.headers.get('content-type') || '';
      return await (type.includes('text/event-stream') ? readStream(res, read) : readJson(res, read));
    } catch (err) {
      if (signal?.aborted) throw stoppedError();
      if (err instanceof ModelError || err instanceof Retryable) throw err;
      if (d.timedOut) throw new Retryable(`no answer within ${timeoutMs} ms`);
      throw sendFailure(err, d, timeoutMs);
    } finally {
      d.dispose();
    }
  }

  /** Tries until one succeeds, a failure is final, or the signal aborts; the wait between grows (retry_policy.js). */
  async function retrying(req, opts) {
    const { signal } = opts;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw stoppedError();
      let failed;
      try {
        return { ...(await once(req, opts)), attempts: attempt };
      } catch (err) {
        if (signal?.aborted) throw stoppedError();
        if (!(err instanceof Retryable)) throw err;
        failed = err;
      }
      const delayMs = backoffDelay(attempt, { baseMs: req.retryBaseMs ?? 1000, maxMs: req.retryMaxMs ?? 30000, retryAfterMs: failed.retryAfterMs, random });
      opts.onRetry?.({ attempt, delayMs, reason: maskKey(failed.message, req.apiKey, { error: true }) });
      await sleep(delayMs, signal);
    }
  }

  /** How often a streamed reply shown so far is worked out again (ms). */
  const STREAM_MASK_MS = 80;

  /**
   * Runs one completion; the configured key is masked in everything it returns.
   * @param {object} req {endpoint, apiKey, model, messages, temperature, loopback,
   *   timeoutMs, retryBaseMs, retryMaxMs, stream=true}
   * @param {{signal?:AbortSignal, onDelta?:(text:string, full:string) => void,
   *   onRetry?:(info:{attempt:number, delayMs:number, reason:string}) => void}} opts
   * @returns {Promise<{content:string, usage:object|null, attempts:number}>}
   */
  async function complete(req, opts = {}) {
    const key = req.apiKey;
    // What is shown while it streams: the key masked, and a tail that may begin it held back until it is
    // whole; worked out at most every STREAM_MASK_MS (masking reads the whole reply): a delta sooner than
    // that is shown with the next one or when that time is up, never dropped, and the end shows at once.
    let shown = '';
    let maskedAt = -Infinity;
    let latest = '';
    let timer = null;
    const show = () => {
      timer = null;
      maskedAt = now();
      const safe = maskKeyStreaming(latest, key);
      const piece = safe.startsWith(shown) ? safe.slice(shown.length) : safe;
      shown = safe;
      if (piece) opts.onDelta(piece, safe);
    };
    const onDelta = opts.onDelta && ((_piece, full) => {
      latest = full;
      if (timer) return;
      const wait = STREAM_MASK_MS - (now() - maskedAt);
      if (wait <= 0) show();
      else timer = setTimeout(show, wait);
    });
    try {
      const r = await retrying(req, { ...opts, onDelta });
      clearTimeout(timer);
      const content = maskKey(r.content, key);
      // What was held back shows once the reply is whole.
      if (onDelta && shown !== content) opts.onDelta(content.startsWith(shown) ? content.slice(shown.length) : content, content);
      return { ...r, content };
    } catch (err) {
      clearTimeout(timer);
      if (err instanceof ModelError) err.message = maskKey(err.message, key, { error: true });
      throw err;
    }
  }

  return { complete, testConnection: createConnectionTest({ doFetch, sleep, now }) };
}
