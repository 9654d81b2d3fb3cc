// A result's images made ready for the page that attaches them: which ones
// (core/result_images.js), each decoded, scaled to the site's longest-side
// bound and encoded as the agent's screenshots are (shared/image_encode.js),
// then posted to the page one message per image, ahead of the verdict that
// names them, so no single message carries more than one image (at most
// MAX_SENT_IMAGE_BYTES). Any MCP-shaped result works, whoever produced it.
import { encodeImage } from '../../shared/image_encode.js';
import { base64Bytes, formatBytes } from '../../shared/core/images.js';
import { MAX_SENT_IMAGE_BYTES, selectImages } from '../core/result_images.js';
import { BRIDGE_CALL } from '../../shared/core/messages.js';

/**
 * The images of result, prepared: meta (one entry per image, in order, for the
 * verdict) and payloads ({n, mime, base64, name} to post).
 * @param {object} result the host's reply
 * @param {{imageMaxSide: number, maxImages: number, attachBy?: string}} settings the site's
 * @param {string} capability the tool that returned it (names the files)
 */
export async function prepareImages(result, settings, capability) {
  const meta = [];
  const payloads = [];
  const stamp = Date.now().toString(36).slice(-5);
  for (const img of selectImages(result, { perMessage: settings.maxImages })) {
    const { base64, ...base } = img;
    if (img.leftOut || settings.attachBy === 'none') {
      meta.push(img.leftOut ? base : { ...base, leftOut: 'Attach images by is set to “Not at all” for this site', byChoice: true });
      continue;
    }
    try {
      const out = await encodeImage(base64, img.mime, { width: settings.imageMaxSide, height: settings.imageMaxSide });
      const sentBytes = base64Bytes(out.image);
      const sized = { ...base, width: out.width, height: out.height, sentWidth: out.sentWidth, sentHeight: out.sentHeight, sentMime: out.mime, sentBytes };
      if (sentBytes > MAX_SENT_IMAGE_BYTES) {
        meta.push({ ...sized, leftOut: `${formatBytes(sentBytes)} once scaled, over the ${formatBytes(MAX_SENT_IMAGE_BYTES)} an attached image may be` });
        continue;
      }
      const name = `${fileStem(capability)}-${img.n}-${stamp}.jpg`;
      meta.push({ ...sized, name });
      payloads.push({ n: img.n, mime: out.mime, base64: out.image, name });
    } catch (err) {
      meta.push({ ...base, leftOut: String(err?.message || err) });
    }
  }
  return { meta, payloads };
}

/** A file name's stem from a capability: "computer.screenshot" → "screenshot". */
function fileStem(capability) {
  return String(capability || 'image').split('.').pop().replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40) || 'image';
}

/** Posts each payload to the page on the call's port; the verdict names them after. */
export function postImages(post, payloads) {
  for (const p of payloads) post({ type: BRIDGE_CALL.IMAGE, ...p });
}
