// The user's reference images for the agent, checked against their limits:
// up to four a message, 10 MiB each, 20 MiB together, PNG, JPEG, WebP or GIF.
// Reading an image (its type, bytes, pixel size) is shared with the chat
// bridge (shared/core/images.js).
//
// Pure module: the images are strings in memory, nothing is fetched.

import { CONTEXT_CODES, ContextError } from './context_error.js';
import { base64Bytes, formatBytes, splitDataUrl } from '../../shared/core/images.js';

const MiB = 1024 * 1024;
/** User reference image limits. */
export const IMAGE_LIMITS = Object.freeze({
  perMessage: 4,
  eachBytes: 10 * MiB,
  totalBytes: 20 * MiB,
  types: Object.freeze(['image/png', 'image/jpeg', 'image/webp', 'image/gif']),
});

/**
 * Checks the reference images of one user message and returns them
 * normalised to {name, mime, size, dataUrl}. Each image is
 * {name, mime?, size?, dataUrl? | data? (base64)}; the size is measured from
 * the data when present. Throws ContextError with a message for the user.
 */
export function validateReferenceImages(images = []) {
  if (images.length > IMAGE_LIMITS.perMessage) {
    throw new ContextError(CONTEXT_CODES.TOO_MANY_IMAGES, `A message can carry at most ${IMAGE_LIMITS.perMessage} images; ${images.length} are attached. Remove ${images.length - IMAGE_LIMITS.perMessage}.`);
  }
  let total = 0;
  const out = images.map((img, i) => {
    const name = img.name || `image ${i + 1}`;
    const parsed = img.dataUrl ? splitDataUrl(img.dataUrl) : null;
    const mime = String(img.mime || parsed?.mime || '').toLowerCase();
    const base64 = parsed ? parsed.base64 : img.data;
    if (!IMAGE_LIMITS.types.includes(mime)) {
      throw new ContextError(CONTEXT_CODES.NOT_AN_IMAGE, `${name} is not a supported image (${mime || 'unknown type'}); attach PNG, JPEG, WebP or GIF.`);
    }
    const size = typeof base64 === 'string' ? base64Bytes(base64) : Number(img.size) || 0;
    if (size > IMAGE_LIMITS.eachBytes) {
      throw new ContextError(CONTEXT_CODES.IMAGE_TOO_LARGE, `${name} is ${formatBytes(size)}; each image may be at most ${formatBytes(IMAGE_LIMITS.eachBytes)}.`);
    }
    total += size;
    return { name, mime, size, dataUrl: img.dataUrl || (typeof base64 === 'string' ? `data:${mime};base64,${base64}` : undefined) };
  });
  if (total > IMAGE_LIMITS.totalBytes) {
    throw new ContextError(CONTEXT_CODES.IMAGES_TOO_LARGE, `The images total ${formatBytes(total)}; together they may be at most ${formatBytes(IMAGE_LIMITS.totalBytes)}.`);
  }
  return out;
}
