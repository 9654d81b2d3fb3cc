// A desktop screenshot as the model receives it: decoded from the server's
// PNG or JPEG, scaled down to fit DESKTOP_SHOT_MAX (a 1920x1080 screen
// becomes 1280x720, about a tab's viewport) and encoded as JPEG at the
// quality of the tab's screenshots (Page.captureScreenshot quality 75), so
// both surfaces cost the same in a request's image budget. Runs in the
// service worker (createImageBitmap, OffscreenCanvas).

import { base64ToBytes, bytesToBase64 } from '../core/base64.js';

/** The largest image sent for a desktop step. */
export const DESKTOP_SHOT_MAX = Object.freeze({ width: 1280, height: 1024 });

/** JPEG quality of every screenshot the model gets (the tab's is 75 of 100). */
const JPEG_QUALITY = 0.75;

/** The scaled size of a width x height image inside max, never enlarged. */
export function fitInside(width, height, max = DESKTOP_SHOT_MAX) {
  const scale = Math.min(1, max.width / width, max.height / height);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * Decodes, scales and re-encodes one screenshot.
 * @param {string} base64 the server's image
 * @param {string} mime image/png or image/jpeg
 * @returns {Promise<{image:string, mime:'image/jpeg', width:number, height:number, sentWidth:number, sentHeight:number}>}
 *   width/height: the server's image; sentWidth/sentHeight: the image sent to the model
 * @throws {Error} when the data is not a decodable image
 */
export async function encodeScreenshot(base64, mime) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(new Blob([base64ToBytes(base64)], { type: mime }));
  } catch (err) {
    throw new Error(`the desktop screenshot is not a readable ${mime} image (${err?.message || err})`, { cause: err });
  }
  try {
    // Scaled while drawn (faster here than createImageBitmap's own resize).
    const sent = fitInside(bitmap.width, bitmap.height);
    const canvas = new OffscreenCanvas(sent.width, sent.height);
    canvas.getContext('2d').drawImage(bitmap, 0, 0, sent.width, sent.height);
    const out = await canvas.convertToBlob({ type: 'image/jpeg', quality: JPEG_QUALITY });
    return {
      image: bytesToBase64(new Uint8Array(await out.arrayBuffer())), mime: 'image/jpeg',
      width: bitmap.width, height: bitmap.height, sentWidth: sent.width, sentHeight: sent.height,
    };
  } finally {
    bitmap.close();
  }
}
