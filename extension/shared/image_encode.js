// An image a tool returned, as a model receives it: decoded from the tool's
// PNG, JPEG, WebP or GIF, scaled down to fit a bound (never enlarged) and
// encoded as JPEG at the quality of the tab's screenshots
// (Page.captureScreenshot quality 75), so every image costs the same in a
// request's image budget. The browser agent's desktop screenshots and the
// images the chat bridge attaches to a chat go through here. Runs where
// createImageBitmap and OffscreenCanvas are: Chromium's service worker,
// Firefox's event page.

import { base64ToBytes, bytesToBase64 } from './core/base64.js';
import { fitInside } from './core/images.js';

/** JPEG quality of every screenshot the model gets (the tab's is 75 of 100). */
const JPEG_QUALITY = 0.75;

/**
 * Decodes, scales and re-encodes one image.
 * @param {string} base64 the tool's image
 * @param {string} mime its type (image/png, image/jpeg, …)
 * @param {{width: number, height: number}} max the largest size sent
 * @param {string} [what] what the image is, for the error ("the desktop screenshot")
 * @returns {Promise<{image:string, mime:'image/jpeg', width:number, height:number, sentWidth:number, sentHeight:number}>}
 *   width/height: the tool's image; sentWidth/sentHeight: the image sent to the model
 * @throws {Error} when the data is not a decodable image
 */
export async function encodeImage(base64, mime, max, what = 'the image') {
  let bitmap;
  try {
    bitmap = await createImageBitmap(new Blob([base64ToBytes(base64)], { type: mime }));
  } catch (err) {
    throw new Error(`${what} is not a readable ${mime} image (${err?.message || err})`, { cause: err });
  }
  try {
    // Scaled while drawn (faster here than createImageBitmap's own resize).
    const sent = fitInside(bitmap.width, bitmap.height, max);
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
