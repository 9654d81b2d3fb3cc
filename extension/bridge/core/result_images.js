// Which images of a tool's result the chat bridge attaches to the chat
// message that carries the result, and how each is scaled: every image in the
// reply (MCP image content, or an embedded resource whose blob is an image),
// numbered in order; those the browser can read, within the size a tool may
// hand over, up to the site's per-message bound, are attached, scaled to fit
// its longest-side bound; the others are left out, each with why. Any
// MCP-shaped reply works, whoever produced it. Pure: the worker decodes and
// encodes (shared/image_encode.js), the page attaches.

import { MAX_SOURCE_IMAGE_BYTES, base64Bytes, fitInside, formatBytes, typeName } from '../../shared/core/images.js';
import { imagesIn } from './result_format.js';

/** The per-site image settings' defaults and bounds (site_settings.js keeps them in range). */
export const IMAGE_SETTINGS = Object.freeze({
  maxSide: Object.freeze({ default: 1568, min: 256, max: 8192 }),
  perMessage: Object.freeze({ default: 4, min: 1, max: 20 }),
});

/** The largest image the bridge attaches once encoded (a JPEG this large is far past any bound a site sets on its longest side). */
export const MAX_SENT_IMAGE_BYTES = 10 * 1024 * 1024;

/** Image types the browser decodes, so the bridge can scale and re-encode them. */
export const READABLE_TYPES = Object.freeze(['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/bmp', 'image/avif']);

/**
 * The images of a reply and what happens to each: {n, of, mime, bytes,
 * base64, uri?} to attach, or {n, of, mime, bytes, leftOut: why, byChoice?}.
 * The first perMessage attachable ones are attached; the rest are left out
 * (byChoice: by the site's own bound, which is no failure to report).
 * @param {object} reply the host's reply (or any MCP-shaped result)
 * @param {{perMessage?: number}} [options]
 */
export function selectImages(reply, { perMessage = IMAGE_SETTINGS.perMessage.default } = {}) {
  const found = imagesIn(reply);
  let taken = 0;
  return found.map((img, i) => {
    const base = { n: i + 1, of: found.length, mime: img.mime, bytes: base64Bytes(img.base64), ...(img.uri ? { uri: img.uri } : {}) };
    const why = problem(base);
    if (why) return { ...base, leftOut: why };
    if (taken >= perMessage) return { ...base, leftOut: `over the bound of ${perMessage} image${perMessage === 1 ? '' : 's'} a message`, byChoice: true };
    taken++;
    return { ...base, base64: img.base64.replace(/\s+/g, '') };
  });
}

function problem({ mime, bytes }) {
  if (!READABLE_TYPES.includes(mime)) return `a ${typeName(mime)} image, which Gnosis cannot scale (it attaches ${READABLE_TYPES.map(typeName).join(', ')})`;
  if (!bytes) return 'the image is empty';
  if (bytes > MAX_SOURCE_IMAGE_BYTES) return `${formatBytes(bytes)}, over the ${formatBytes(MAX_SOURCE_IMAGE_BYTES)} an image may be`;
  return '';
}

/** The size an image of width x height is sent at: its longest side at most maxSide, never enlarged. */
export function scaledSize(width, height, maxSide = IMAGE_SETTINGS.maxSide.default) {
  return fitInside(width, height, { width: maxSide, height: maxSide });
}

/**
 * The point on the screen (the tool's coordinates) of a point in the sent
 * image, by the rule the text states: each coordinate times the screen's
 * size over the image's, rounded to the nearest whole pixel, kept on the screen.
 * @param {[number, number]} point in the sent image's pixels
 * @param {{width: number, height: number, sentWidth: number, sentHeight: number}} image
 */
export function toScreen([x, y], { width, height, sentWidth, sentHeight }) {
  const clamp = (v, size) => Math.min(Math.max(v, 0), size - 1);
  return [clamp(Math.round((x * width) / sentWidth), width), clamp(Math.round((y * height) / sentHeight), height)];
}
