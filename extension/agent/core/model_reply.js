// The steps of one request to an OpenAI-compatible model server, which the
// model client (model_client.js) and Test connection (connection_test.js)
// put together: the request itself, a deadline that an abort or a quiet
// server ends, and the reading of the reply (a JSON completion, or an SSE
// stream with its deltas, its usage, and an error event a server may send
// inside a 200). Each failure is a ModelError (final) or a Retryable (the
// client tries again). Pure: fetch is the caller's.

import { CodedError } from '../../shared/core/coded_error.js';
import { isRetryableStatus } from './retry_policy.js';
import { errorDetail } from './server_text.js';

/** An error the loop shows to the user; code is stable. */
export class ModelError extends CodedError {}

/** A failure the client tries again (a 5xx, a timeout, a network error, a transient error in a stream). */
export class Retryable extends Error {
  /** @param {string} reason what the retry card says; @param {number} [retryAfterMs] the server's Retry-After */
  constructor(reason, retryAfterMs) {
    super(reason);
    this.retryAfterMs = retryAfterMs;
  }
}

/** The error thrown when the caller stopped the request. */
export function stoppedError() {
  return new ModelError('stopped', 'stopped by the user');
}

/** What each failed HTTP status usually means, for the person. */
export const HTTP_HINTS = Object.freeze({
  400: 'the server refused the request; check the model name',
  401: 'the API key is missing, wrong or expired',
  403: 'the API key may not use this model or this endpoint',
  404: 'no such endpoint or model; check the API URL and the model name',
  405: 'the URL does not accept chat completions; check the API URL',
  408: 'the server timed out',
  429: 'rate limited or out of quota',
});

/**
 * The fetch init of a chat completion request.
 * @param {{model:string, messages:Array, temperature?:number, apiKey?:string, stream?:boolean}} req
 * @param {AbortSignal} signal
 */
export function completionInit(req, signal) {
  const body = { model: req.model, messages: req.messages, temperature: req.temperature };
  if (req.stream === false) body.stream = false;
  else {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  const headers = { 'Content-Type': 'application/json', Accept: req.stream === false ? 'application/json' : 'text/event-stream, application/json' };
  if (req.apiKey) headers.Authorization = `Bearer ${req.apiKey}`;
  return { method: 'POST', headers, body: JSON.stringify(body), signal };
}

/**
 * A time limit for one try that the caller's signal also ends: signal is the
 * fetch's; arm() starts (or restarts, as bytes arrive) the limit; timedOut
 * says which of the two ended it; dispose() when the try is over.
 * @param {number} timeoutMs
 * @param {AbortSignal} [outer] the caller's Stop
 */
export function deadline(timeoutMs, outer) {
  const ctl = new AbortController();
  const onAbort = () => ctl.abort();
  outer?.addEventListener('abort', onAbort, { once: true });
  let timer = 0;
  const d = {
    signal: ctl.signal,
    timedOut: false,
    arm() {
      clearTimeout(timer);
      timer = setTimeout(() => { d.timedOut = true; ctl.abort(); }, timeoutMs);
    },
    dispose() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
  d.arm();
  return d;
}

/** A whole body as text; onProgress on every chunk (it rearms the deadline). */
export async function readAll(res, onProgress = () => {}) {
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

/**
 * The error a streamed event carries instead of a delta, or null: OpenAI's
 * and most servers' {"error": {...}} or {"error": "..."}, Anthropic's
 * {"type": "error", "error": {...}}, vLLM's {"object": "error", "message", "code"}.
 * @returns {{message:string, status?:number, type?:string} | null}
 */
export function streamError(event) {
  if (!event || typeof event !== 'object' || event.choices) return null;
  const e = event.error ?? (event.object === 'error' || event.type === 'error' ? event : undefined);
  if (e === undefined || e === null) return null;
  if (typeof e === 'string') return { message: e };
  const status = [e.status, e.code, event.status, event.code].find((n) => Number.isInteger(n) && n >= 100 && n <= 599);
  const type = [e.type, typeof e.code === 'string' ? e.code : undefined].filter((t) => typeof t === 'string' && t !== 'error').join(' ');
  const message = typeof e.message === 'string' && e.message ? e.message : type || 'the server reported an error';
  return { message, ...(status ? { status } : {}), ...(type ? { type } : {}) };
}

/** Error kinds a retry cannot fix: the request itself is wrong (too long for the model's context, refused, unknown model). */
const FINAL_KIND = /invalid_request|context_length|context window|bad_request|authentication|permission|not_found|unsupported/i;
const FINAL_MESSAGE = /context length|context window|maximum context|too many tokens|prompt is too long|reduce the length/i;
const TRANSIENT_KIND = /overloaded|rate_limit|server_error|api_error|internal|timeout|unavailable/i;

/**
 * A streamed error as the client's failure: final (a ModelError that ends
 * the task with the server's words) when it says the request is at fault,
 * else tried again like a 5xx, the server's words in the retry card.
 */
export function streamFailure(e, key) {
  const words = errorDetail(JSON.stringify({ message: e.message }), key);
  const final = e.status ? !isRetryableStatus(e.status) : !TRANSIENT_KIND.test(e.type || '') && (FINAL_KIND.test(e.type || '') || FINAL_MESSAGE.test(e.message));
  if (final) return new ModelError('stream_error', `the model server sent an error instead of a reply${e.status ? ` (${e.status})` : ''}: ${words}`);
  return new Retryable(`the model server sent an error in its stream: ${words}`);
}

/**
 * Reads an SSE completion: its deltas (onDelta), its usage, and an error
 * event, which fails the read (streamFailure).
 * @returns {Promise<{content:string, usage:object|null}>}
 */
export async function readStream(res, { onProgress, onDelta, key }) {
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
      const failed = streamError(j);
      if (failed) throw streamFailure(failed, key);
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

/** Reads a plain JSON completion (a server that does not stream). */
export async function readJson(res, { onProgress, onDelta, key }) {
  const text = await readAll(res, onProgress);
  let json;
  try { json = JSON.parse(text); } catch { throw new Retryable('the success reply was not JSON'); }
  if (!json?.choices?.[0]?.message) throw new ModelError('bad_reply', `the reply has no choices[0].message: ${errorDetail(text, key)}`);
  const content = messageText(json.choices[0].message.content);
  onDelta?.(content, content);
  return { content, usage: json.usage || null };
}
