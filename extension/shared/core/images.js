// Images as tools return them and models receive them, the parts the browser
// agent and the chat bridge share: the decoded size of base64, an image's
// pixel size read from its file header (nothing is decoded), data URLs, byte
// counts for people, the largest image a tool may hand over, and the size an
// image is scaled to inside a bound. Pure.

const MiB = 1024 * 1024;

/** The largest image accepted from a tool (decoded bytes): a screenshot of a large screen as PNG stays under it. */
export const MAX_SOURCE_IMAGE_BYTES = 16 * MiB;

/** Formats a byte count for people ("12.3 MiB"). */
export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < MiB) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / MiB).toFixed(1)} MiB`;
}

/** The name an image type reads as for people: "PNG", "JPEG", "SVG". */
export function typeName(mime) {
  const sub = String(mime || '').replace(/^image\//, '');
  return sub ? sub.toUpperCase().replace('SVG+XML', 'SVG') : 'untyped';
}

/** Decoded size of base64 text, in bytes (whitespace ignored). */
export function base64Bytes(data) {
  const clean = String(data).replace(/\s+/g, '');
  const pad = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - pad);
}

/** The MIME type and base64 payload of a data URL, or null. */
export function splitDataUrl(s) {
  const m = /^data:([^;,]*)(;base64)?,(.*)$/is.exec(s || '');
  return m ? { mime: m[1].toLowerCase(), base64: m[3] } : null;
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

/** The scaled size of a width x height image inside max {width, height}, never enlarged; each side rounded, at least 1. */
export function fitInside(width, height, max) {
  const scale = Math.min(1, max.width / width, max.height / height);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}
