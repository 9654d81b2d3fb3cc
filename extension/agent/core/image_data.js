// Images as the model receives them: data URLs carrying base64. Reading one
// (its MIME type, its byte count, its pixel size from the file header, so no
// image is decoded) and checking the user's reference images against their
// limits: up to four a message, 10 MiB each, 20 MiB together, PNG, JPEG,
// WebP or GIF. Also the byte count formatter the limit messages use (file
// transfer sizes use it too).
//
// Pure module: the images are strings in memory, nothing is fetched.

import { CONTEXT_CODES, ContextError } from './context_error.js';

const MiB = 1024 * 1024;
/** User reference image limits. */
export const IMAGE_LIMITS = Object.freeze({
  perMessage: 4,
  eachBytes: 10 * MiB,
  totalBytes: 20 * MiB,
  types: Object.freeze(['image/png', 'image/jpeg', 'image/webp', 'image/gif']),
});

/** Formats a byte count for people ("12.3 MiB"). */
export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < MiB) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / MiB).toFixed(1)} MiB`;
}

/** The MIME type and base64 payload of a data URL, or null. */
export function splitDataUrl(s) {
  const m = /^data:([^;,]*)(;base64)?,(.*)$/is.exec(s || '');
  return m ? { mime: m[1].toLowerCase(), base64: m[3] } : null;
}

function base64Bytes(b64) {
  const clean = String(b64).replace(/\s+/g, '');
  const pad = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - pad);
}

/** Pixel size {width, height} of a base64 PNG, JPEG, GIF or WebP, or null. */
export function imageSize(base64) {
  let bytes;
  try {
    const head = String(base64).replace(/\s+/g, '').slice(0, 65536).replace(/=+$/, '');
    const bin = atob(head.slice(0, head.length - (head.length % 4)));
    bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
  const u16 = (i) => (bytes[i] << 8) | bytes[i + 1];
  const u32 = (i) => ((bytes[i] << 24) >>> 0) + (bytes[i + 1] << 16) + (bytes[i + 2] << 8) + bytes[i + 3];
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes.length >= 24) return { width: u32(16), height: u32(20) };
  if (bytes[0] === 0x47 && bytes[1] === 0x49 && bytes.length >= 10) return { width: bytes[6] | (bytes[7] << 8), height: bytes[8] | (bytes[9] << 8) };
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length && bytes[i] === 0xff) {
      const marker = bytes[i + 1];
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return { width: u16(i + 7), height: u16(i + 5) };
      i += 2 + u16(i + 2);
    }
    return null;
  }
  if (bytes[0] === 0x52 && bytes[8] === 0x57 && bytes.length >= 30) {
    const kind = String.fromCharCode(...bytes.slice(12, 16));
    if (kind === 'VP8X') return { width: 1 + (bytes[24] | (bytes[25] << 8) | (bytes[26] << 16)), height: 1 + (bytes[27] | (bytes[28] << 8) | (bytes[29] << 16)) };
    if (kind === 'VP8 ') return { width: (bytes[26] | (bytes[27] << 8)) & 0x3fff, height: (bytes[28] | (bytes[29] << 8)) & 0x3fff };
    if (kind === 'VP8L') {
      const b = bytes.slice(21, 25);
      return { width: 1 + (((b[1] & 0x3f) << 8) | b[0]), height: 1 + (((b[3] & 0xf) << 10) | (b[2] << 2) | ((b[1] & 0xc0) >> 6)) };
    }
  }
  return null;
}

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
