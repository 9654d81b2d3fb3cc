// Turns the host's reply into the text injected into the chat: the whole reply
// JSON (success or error), with images and other binary payloads summarised
// (type, size, or the number of the image attached to the message) instead
// of dumped as base64, and the total capped with a clear marker; and finds
// the images in a reply, in that same order. Pure.

import { TRANSPORT_CODES } from '../../shared/core/codes.js';
import { base64Bytes } from '../../shared/core/images.js';

/** Default cap on injected characters. */
export const DEFAULT_MAX_CHARS = 20_000;
const LONG_BASE64 = 2048;
const BASE64 = /^[A-Za-z0-9+/=\s]+$/;

export { base64Bytes };

/**
 * An image in a tool's result: MCP image content ({type: 'image', data,
 * mimeType}) or an embedded resource whose blob is an image; null for
 * anything else. {mime, base64, uri?}.
 */
export function imagePart(value) {
  if (!value || typeof value !== 'object') return null;
  if (value.type === 'image' && typeof value.data === 'string') return { mime: String(value.mimeType || '').toLowerCase(), base64: value.data };
  const r = value.type === 'resource' ? value.resource : null;
  if (r && typeof r.blob === 'string' && /^image\//i.test(String(r.mimeType || ''))) {
    return { mime: String(r.mimeType).toLowerCase(), base64: r.blob, ...(typeof r.uri === 'string' ? { uri: r.uri } : {}) };
  }
  return null;
}

/**
 * Returns a copy of value with binary payloads summarised. Images are
 * numbered in the order they appear (as imagesIn finds them); label(n, mime,
 * bytes), when given, is what an image's data or blob reads instead of
 * "[image omitted: …]" (the injected text names each attached image by n).
 */
export function summariseBinary(value, label) {
  let n = 0;
  const walk = (v) => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const image = imagePart(v);
      if (image) n++;
      const said = (kind, mime, data) => (image && label ? label(n, image.mime, base64Bytes(data)) : `[${kind} omitted: ${mime || 'unknown type'}, ${base64Bytes(data)} bytes]`);
      if ((v.type === 'image' || v.type === 'audio') && typeof v.data === 'string') {
        const { data, ...rest } = v;
        return { ...walk(rest), bytes: base64Bytes(data), data: said(v.type, v.mimeType, data) };
      }
      if (v.type === 'resource' && v.resource && typeof v.resource.blob === 'string') {
        const { blob, ...res } = v.resource;
        return { ...v, resource: { ...res, blob: said('blob', res.mimeType, blob) } };
      }
      const out = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x);
      return out;
    }
    if (typeof v === 'string' && v.length >= LONG_BASE64 && looksBase64(v.slice(0, 4096))) {
      return `[base64 data omitted: ${base64Bytes(v)} bytes]`;
    }
    return v;
  };
  return walk(value);
}

/** Every image in value ({mime, base64, uri?}), in the order summariseBinary numbers them. */
export function imagesIn(value) {
  const out = [];
  const walk = (v) => {
    if (Array.isArray(v)) {
      v.forEach(walk);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const image = imagePart(v);
    if (image) out.push(image);
    if ((v.type === 'image' || v.type === 'audio') && typeof v.data === 'string') {
      for (const [k, x] of Object.entries(v)) if (k !== 'data') walk(x);
      return;
    }
    if (v.type === 'resource' && v.resource && typeof v.resource.blob === 'string') return;
    for (const x of Object.values(v)) walk(x);
  };
  walk(value);
  return out;
}

function looksBase64(head) {
  return BASE64.test(head) && !/\s/.test(head.slice(0, 200)) && /[A-Z]/.test(head) && /[a-z]/.test(head) && /[0-9+/]/.test(head);
}

/**
 * The text to inject for a host reply.
 * @param {object} reply the host's reply (ok true or false)
 * @param {{maxChars?: number, imageLabel?: (n: number, mime: string, bytes: number) => string}} [options]
 *   imageLabel: what each image's data reads (summariseBinary)
 */
export function formatReply(reply, { maxChars = DEFAULT_MAX_CHARS, imageLabel } = {}) {
  const rest = { ...reply };
  delete rest.id;
  const text = JSON.stringify(summariseBinary(rest, imageLabel));
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
