// A known test pattern of a screen, for the tests of images attached to a
// chat: blocks of distinct colours (never red) with one pure red square, the
// target, whose place depends on the screen's size. The fixture MCP server
// (fixtures/pattern_screen_mcp.mjs) returns it as its screenshot; the tests
// rebuild it to check an attached image's size and pixels, and play the
// vision model that finds the target in the image it was sent (visionModel,
// for lib/model_server.js).
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import sharp from 'sharp';
import { REPO } from './harness.js';
import { textOf } from './model_server.js';

const BLOCK = 60;

/** The target square on a width x height screen: {x, y, size} (its top left corner and side). */
export function targetFor(width, height) {
  const size = Math.max(24, Math.round(width / 40));
  return { x: Math.round(width * 0.62), y: Math.round(height * 0.37), size };
}

/** The pattern's pixels, RGB, row by row. */
export function patternPixels(width, height) {
  const t = targetFor(width, height);
  const rgb = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      if (x >= t.x && x < t.x + t.size && y >= t.y && y < t.y + t.size) {
        rgb[i] = 255;
        continue;
      }
      const bx = Math.floor(x / BLOCK);
      const by = Math.floor(y / BLOCK);
      rgb[i] = (bx * 53 + by * 11) % 200;
      rgb[i + 1] = (by * 97 + bx * 7) % 256;
      rgb[i + 2] = 110 + ((bx + by) * 29) % 146;
    }
  }
  return rgb;
}

/** The pattern as a base64 PNG. */
export async function patternPng(width, height) {
  return (await sharp(patternPixels(width, height), { raw: { width, height, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer()).toString('base64');
}

/** Decodes an image (base64 or bytes) to {width, height, rgb}. */
export async function decode(image) {
  const buf = Buffer.isBuffer(image) ? image : Buffer.from(image, 'base64');
  const { data, info } = await sharp(buf).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgb: data };
}

/** The centre of the red target in decoded pixels, in its own pixels, or null. */
export function findTarget({ width, height, rgb }) {
  let sx = 0;
  let sy = 0;
  let n = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      if (rgb[i] > 190 && rgb[i + 1] < 80 && rgb[i + 2] < 80) {
        sx += x;
        sy += y;
        n++;
      }
    }
  }
  return n ? { x: Math.round(sx / n), y: Math.round(sy / n) } : null;
}

/**
 * How far decoded pixels are from the pattern of a width x height screen
 * scaled to their size: the mean absolute difference of a channel (0..255).
 */
export async function differenceFromPattern(decoded, width, height) {
  const want = await sharp(patternPixels(width, height), { raw: { width, height, channels: 3 } })
    .resize(decoded.width, decoded.height, { fit: 'fill' }).raw().toBuffer();
  let sum = 0;
  for (let i = 0; i < want.length; i++) sum += Math.abs(want[i] - decoded.rgb[i]);
  return sum / want.length;
}

/** Whether a point of the screen is on the target. */
export function onTarget(x, y, width, height) {
  const t = targetFor(width, height);
  return x >= t.x && x < t.x + t.size && y >= t.y && y < t.y + t.size;
}

/**
 * The rule the injected text states, as the model applies it: the fractions
 * of "(x × 1920 / 1568, y × 1080 / 882)", or none for an image at full size.
 * Returns a function from an image point to a screen point, or null when the
 * text states no rule.
 */
export function ruleFrom(text) {
  const m = /\(x × (\d+) \/ (\d+), y × (\d+) \/ (\d+)\)/.exec(text);
  if (m) return ([x, y]) => [Math.round((x * Number(m[1])) / Number(m[2])), Math.round((y * Number(m[3])) / Number(m[4]))];
  if (/a point \(x, y\) in it is the point \(x, y\) on the screen/.test(text)) return (p) => p;
  return null;
}

/** The fixture MCP server as a host provider under prefix: its screens in state (a JSON file), its clicks logged to log. */
export function patternProvider({ state, log, prefix = 'desk' }) {
  return {
    name: prefix, command: process.execPath, args: [path.join(REPO, 'tests', 'e2e', 'fixtures', 'pattern_screen_mcp.mjs')], prefix, timeout: '30s',
    env: { PATTERN_STATE: state, PATTERN_LOG: log },
  };
}

/**
 * A scripted vision model (lib/model_server.js's script) that operates the
 * pattern's screen: asked anything, it calls `<prefix>.screenshot`; given the
 * image, it finds the red target in it, applies the rule the text states and
 * calls `<prefix>.click` there; told of a hit, it answers in prose. seen
 * records each image it got: {images, mime, width, height, target, text,
 * screen, difference} (screen: screenOf() when it got it).
 * @param {() => {width: number, height: number}} screenOf the screen the server shows now
 */
export function visionModel(screenOf, prefix = 'desk') {
  const seen = [];
  const call = (capability, args) => ({ content: JSON.stringify({ capability: `${prefix}.${capability}`, arguments: args }) });
  async function script({ body }) {
    const last = body.messages[body.messages.length - 1];
    const text = textOf(last);
    const images = Array.isArray(last.content) ? last.content.filter((p) => p.type === 'image_url') : [];
    if (images.length) {
      const url = images[0].image_url.url;
      const decoded = await decode(url.slice(url.indexOf(',') + 1));
      const target = findTarget(decoded);
      const rule = ruleFrom(text);
      const screen = screenOf();
      seen.push({
        images: images.length, mime: url.slice(5, url.indexOf(';')), width: decoded.width, height: decoded.height, target, text, screen,
        difference: await differenceFromPattern(decoded, screen.width, screen.height),
      });
      if (!target || !rule) return { content: 'I cannot see the red square.' };
      const [x, y] = rule([target.x, target.y]);
      return call('click', { x, y });
    }
    // The click's result, its JSON quoted inside the result's text.
    if (/hit\\?":\s*true/.test(text)) return { content: 'Done: the red square is clicked.' };
    if (/hit\\?":/.test(text)) return { content: 'I missed it.' };
    return call('screenshot', {});
  }
  return { script, seen };
}

/** Writes the pattern server's screens (its PATTERN_STATE) at once: the server reads it at any moment, never half written. */
export function writeScreens(file, screens) {
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(screens));
  fs.renameSync(`${file}.tmp`, file);
}
