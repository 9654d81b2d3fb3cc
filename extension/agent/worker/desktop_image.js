// A desktop screenshot as the agent's model receives it: scaled down to fit
// DESKTOP_SHOT_MAX (a 1920x1080 screen becomes 1280x720, about a tab's
// viewport) and encoded as the tab's screenshots are (shared/image_encode.js).

import { encodeImage } from '../../shared/image_encode.js';

/** The largest image sent for a desktop step. */
export const DESKTOP_SHOT_MAX = Object.freeze({ width: 1280, height: 1024 });

/**
 * Decodes, scales and re-encodes one screenshot.
 * @returns {Promise<{image:string, mime:'image/jpeg', width:number, height:number, sentWidth:number, sentHeight:number}>}
 * @throws {Error} when the data is not a decodable image
 */
export function encodeScreenshot(base64, mime) {
  return encodeImage(base64, mime, DESKTOP_SHOT_MAX, 'the desktop screenshot');
}
