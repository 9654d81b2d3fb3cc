// What the model reads about the images of a result: after the result's JSON
// (where each image's data reads "[image 1 of 2: see below]"), one
// line per image in order — which tool made it, the size and type it was
// attached at, the screen's size, and the exact rule that turns a point in the
// image into the tool's coordinates — or plainly that it was not attached and
// why. A model never reads "attached" for an image the page did not show.
// Pure.

import { formatBytes, typeName } from '../../shared/core/images.js';
import { SHOT_POINT_RULE, isBrowserCapability } from './browser_point.js';

/** Whether a tool's image is a picture of a screen (its name says so), which the text then calls "the screen". */
export function isScreen(capability) {
  return /screen|shot|capture|display|desktop|monitor/i.test(String(capability || ''));
}

/** "1.5", or "≈1.6327" for a factor that four decimals do not hold exactly. */
function factor(a, b) {
  const f = a / b;
  const r = Math.round(f * 10000) / 10000;
  return `${Math.abs(f - r) < 1e-9 ? '' : '≈'}${r}`;
}

/**
 * The rule from a point (x, y) in the sent image to the tool's coordinates
 * (pixels of the tool's own image).
 * @param {{width: number, height: number, sentWidth: number, sentHeight: number}} image
 * @param {string} where "the screen" or "the original image"
 */
export function pointRule({ width, height, sentWidth, sentHeight }, where = 'the screen') {
  if (width === sentWidth && height === sentHeight) {
    return `This image is ${where} at full size: a point (x, y) in it is the point (x, y) on ${where}.`;
  }
  return `A point (x, y) in this image is the point (x × ${width} / ${sentWidth}, y × ${height} / ${sentHeight}) on ${where}, `
    + `that is (x × ${factor(width, sentWidth)}, y × ${factor(height, sentHeight)}), rounded to the nearest whole pixel.`;
}

/** What an image's data reads in the result's JSON: its number, the lines after the JSON say the rest. */
export function imageLabel(n, of) {
  return `[image ${n} of ${of}: see below]`;
}

/**
 * One line for an image.
 * @param {string} capability the tool that returned it
 * @param {object} image {n, of, mime, bytes, attached, why?, width?, height?, sentWidth?, sentHeight?, sentMime?}
 */
export function imageLine(capability, image) {
  const head = `image ${image.n} of ${image.of}: ${capability}`;
  const where = isScreen(capability) ? 'the screen' : 'the original image';
  const size = image.width ? `${image.width}×${image.height}` : '';
  // The browser tools point on the 0..999 scale of the image, not in pixels of a screen.
  if (image.attached && isBrowserCapability(capability)) return `${head}, ${image.sentWidth}×${image.sentHeight} ${typeName(image.sentMime)}, the tab's view. ${SHOT_POINT_RULE}`;
  if (image.attached) {
    const of = `${where === 'the screen' ? 'the screen is' : 'the original is'} ${size}`;
    return `${head}, ${image.sentWidth}×${image.sentHeight} ${typeName(image.sentMime)}, ${of}. ${pointRule(image, where)}`;
  }
  const what = [size, typeName(image.mime), image.bytes ? formatBytes(image.bytes) : ''].filter(Boolean).join(' ');
  return `${head} (${what}), not attached: ${image.why || 'it could not be attached'}. You cannot see it.`;
}

/**
 * The lines after the result's JSON; '' for a result without images.
 * @param {string} capability
 * @param {object[]} images imageLine's images, in order
 */
export function imageNote(capability, images) {
  if (!images?.length) return '';
  const attached = images.filter((i) => i.attached).length;
  const lead = attached === images.length
    ? `${images.length === 1 ? 'The image' : `All ${images.length} images`} of this result ${images.length === 1 ? 'is' : 'are'} attached to this message, after this text:`
    : attached
      ? `${attached} of the ${images.length} images of this result ${attached === 1 ? 'is' : 'are'} attached to this message, after this text:`
      : `The image${images.length === 1 ? '' : 's'} of this result could not be attached to this message:`;
  return [lead, ...images.map((i) => imageLine(capability, i))].join('\n');
}

/** What the Activity view says of a call's images: "image 1 attached (1280×720 JPEG, screenshot-1-x.jpg); image 2 not attached: why". */
export function imagesFact(images) {
  if (!Array.isArray(images) || !images.length) return '';
  return images.map((i) => (i.attached
    ? `image ${i.n} attached${i.sentWidth ? ` (${i.sentWidth}×${i.sentHeight} JPEG${i.name ? `, ${i.name}` : ''})` : ''}`
    : `image ${i.n} not attached: ${i.why || 'no reason given'}`)).join('; ');
}
