// Turns the host's reply into the text injected into the chat: the whole reply
// JSON (success or error), with images and other binary payloads summarised
// (type, size) instead of dumped as base64, and the total capped with a clear
// marker. Pure.

import { TRANSPORT_CODES } from '../../shared/core/codes.js';
import { base64Bytes } from '../../shared/core/images.js';

/** Default cap on injected characters. */
export const DEFAULT_MAX_CHARS = 20_000;
const LONG_BASE64 = 2048;
const BASE64 = /^[A-Za-z0-9+/=\s]+$/;

export { base64Bytes };

/** Returns a copy of value with binary payloads summarised. */
export function summariseBinary(value) {
  if (Array.isArray(value)) return value.map(summariseBinary);
  if (value && typeof value === 'object') {
    if ((value.type === 'image' || value.type === 'audio') && typeof value.data === 'string') {
      const { data, ...rest } = value;
      return { ...summariseBinary(rest), bytes: base64Bytes(data), data: `[${value.type} omitted: ${value.mimeType || 'unknown type'}, ${base64Bytes(data)} bytes]` };
    }
    if (value.type === 'resource' && value.resource && typeof value.resource.blob === 'string') {
      const { blob, ...res } = value.resource;
      return { ...value, resource: { ...res, blob: `[blob omitted: ${res.mimeType || 'unknown type'}, ${base64Bytes(blob)} bytes]` } };
    }
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = summariseBinary(v);
    return out;
  }
  if (typeof value === 'string' && value.length >= LONG_BASE64 && looksBase64(value.slice(0, 4096))) {
    return `[base64 data omitted: ${base64Bytes(value)} bytes]`;
  }
  return value;
}

function looksBase64(head) {
  return BASE64.test(head) && !/\s/.test(head.slice(0, 200)) && /[A-Z]/.test(head) && /[a-z]/.test(head) && /[0-9+/]/.test(head);
}

/**
 * The text to inject for a host reply.
 * @param {object} reply the host's reply (ok true or false)
 * @param {{maxChars?: number}} [options]
 */
export function formatReply(reply, { maxChars = DEFAULT_MAX_CHARS } = {}) {
  const rest = { ...reply };
  delete rest.id;
  const text = JSON.stringify(summariseBinary(rest));
  if (text.length <= maxChars) return text;
  const marker = `\n…[truncated by Gnosis: showing ${maxChars} of ${text.length} characters]`;
  return text.slice(0, Math.max(0, maxChars)) + marker;
}

/**
 * Transport failures that can come after the host received the call: the
 * host exited or broke the stream, or did not answer in time. The call may
 * have run on the desktop.
 */
const AFTER_SENDING = new Set([TRANSPORT_CODES.HOST_EXITED, TRANSPORT_CODES.HOST_ERROR, TRANSPORT_CODES.HOST_DISCONNECTED, TRANSPORT_CODES.TIMEOUT]);

/** What the model reads after a call that was interrupted: it may have run, so check before calling it again. */
const CHECK_FIRST = 'It may have run on the desktop: check its effect before calling it again.';

/**
 * The reply to inject when the host did not answer a call: not reached at
 * all, or gone while the call ran (then marked interrupted, may have run).
 */
export function transportReply(err, capability) {
  const code = err?.code || TRANSPORT_CODES.HOST_ERROR;
  const message = String(err?.message || err);
  if (!AFTER_SENDING.has(code)) return { ok: false, error: true, code, capability, message, advice: err?.advice };
  return {
    ok: false, error: true, code, capability, interrupted: true, mayHaveRun: true,
    message: `${capability} was interrupted: ${message}. ${CHECK_FIRST}`, advice: err?.advice,
  };
}

/**
 * The reply to inject when the extension's worker went away while a call ran
 * (written by the page, which keeps it from the moment the call started).
 * @param {string|null} capability null when the page lost the worker before it knew the call
 */
export function interruptedReply(capability) {
  const what = capability || 'the call';
  return {
    ok: false, error: true, code: TRANSPORT_CODES.HOST_DISCONNECTED, ...(capability ? { capability } : {}), interrupted: true, mayHaveRun: true,
    message: `${what} was interrupted: the browser extension's worker stopped while it ran. ${CHECK_FIRST}`,
  };
}
