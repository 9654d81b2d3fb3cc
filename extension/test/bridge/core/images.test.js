// Images from tool results attached to the chat: which images a reply holds
// and which are attached (core/result_images.js), how each is scaled and the
// rule from a point in the image to the tool's coordinates, what the model
// reads about them (core/image_note.js), and how a page takes them
// (core/attach_means.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IMAGE_SETTINGS, scaledSize, selectImages, toScreen } from '../../../bridge/core/result_images.js';
import { imageLabel, imageLine, imageNote, imagesFact, pointRule } from '../../../bridge/core/image_note.js';
import { acceptsType, attachMeans, attachMessage, describeMeans } from '../../../bridge/core/attach_means.js';
import { formatReply, summariseBinary } from '../../../bridge/core/result_format.js';
import { normalizeSettings } from '../../../bridge/core/site_settings.js';
import { PRESETS, presetById } from '../../../bridge/core/presets.js';
import { buildCapabilityPrompt } from '../../../bridge/core/capability_prompt.js';
import { MAX_SOURCE_IMAGE_BYTES } from '../../../shared/core/images.js';

const b64 = (n) => Buffer.alloc(n, 7).toString('base64');
const image = (mime, n = 30) => ({ type: 'image', mimeType: mime, data: b64(n) });
const blob = (mime, n = 30) => ({ type: 'resource', resource: { uri: `file:///shot.${mime.split('/')[1]}`, mimeType: mime, blob: b64(n) } });
const reply = (...content) => ({ id: 3, ok: true, capability: 'computer.screenshot', result: { content: [{ type: 'text', text: 'shot' }, ...content] } });

test('every image of a reply is found in order, image content and image blobs alike; others are left out with why', () => {
  const got = selectImages(reply(image('image/png', 40), blob('image/jpeg', 20), blob('application/pdf'), image('image/svg+xml'), image('image/png', 0)));
  assert.deepEqual(got.map(({ base64, ...rest }) => ({ ...rest, data: !!base64 })), [
    { n: 1, of: 4, mime: 'image/png', bytes: 40, data: true },
    { n: 2, of: 4, mime: 'image/jpeg', bytes: 20, uri: 'file:///shot.jpeg', data: true },
    { n: 3, of: 4, mime: 'image/svg+xml', bytes: 30, data: false, leftOut: 'a SVG image, which Gnosis cannot scale (it attaches PNG, JPEG, WEBP, GIF, BMP, AVIF)' },
    { n: 4, of: 4, mime: 'image/png', bytes: 0, data: false, leftOut: 'the image is empty' },
  ]);
  assert.deepEqual(selectImages({ ok: true, result: { content: [{ type: 'text', text: 'no image' }] } }), []);
  assert.deepEqual(selectImages({ ok: false, code: 'TIMEOUT', message: 'x' }), []);
});

test('past the per-message bound, images are left out and say so; an image over the size a tool may hand over is left out', () => {
  const many = selectImages(reply(...Array.from({ length: 6 }, () => image('image/png'))), { perMessage: 4 });
  assert.deepEqual(many.map((i) => i.leftOut || 'attach'), ['attach', 'attach', 'attach', 'attach', 'over the bound of 4 images a message', 'over the bound of 4 images a message']);
  const one = selectImages(reply(image('image/png'), image('image/png')), { perMessage: 1 });
  assert.equal(one[1].leftOut, 'over the bound of 1 image a message');
  assert.equal(one[1].byChoice, true, 'left out by the site\'s own bound: no failure');
  assert.equal(IMAGE_SETTINGS.perMessage.default, 4);
  const huge = { type: 'image', mimeType: 'image/png', data: 'A'.repeat(Math.ceil(((MAX_SOURCE_IMAGE_BYTES + 3) * 4) / 3)) };
  const [big, small] = selectImages(reply(huge, image('image/png')), { perMessage: 1 });
  assert.match(big.leftOut, /^16\.0 MiB, over the 16\.0 MiB an image may be$/);
  assert.ok(small.base64, 'the image after an oversize one is attached in its place');
});

test('the injected JSON numbers images as selectImages does, and points to the lines about them', () => {
  const r = reply(image('image/png'), blob('image/jpeg'), { type: 'audio', mimeType: 'audio/wav', data: b64(9) });
  const text = formatReply(r, { imageLabel: (n) => imageLabel(n, 2) });
  const parsed = JSON.parse(text);
  assert.equal(parsed.result.content[1].data, '[image 1 of 2: see below]');
  assert.equal(parsed.result.content[2].resource.blob, '[image 2 of 2: see below]');
  assert.equal(parsed.result.content[3].data, '[audio omitted: audio/wav, 9 bytes]');
  assert.equal(parsed.id, undefined);
  // Without a label (the activity log), images are summarised as before.
  assert.equal(summariseBinary(r).result.content[1].data, '[image omitted: image/png, 30 bytes]');
});

test('images are scaled so the longest side fits the bound, never enlarged', () => {
  const cases = [
    [1920, 1080, 1568, { width: 1568, height: 882 }],
    [3840, 2160, 1568, { width: 1568, height: 882 }],
    [1080, 1920, 1568, { width: 882, height: 1568 }],
    [1280, 720, 1568, { width: 1280, height: 720 }],
    [1568, 1568, 1568, { width: 1568, height: 1568 }],
    [2560, 1440, 1000, { width: 1000, height: 563 }],
    [5000, 10, 1568, { width: 1568, height: 3 }],
  ];
  for (const [w, h, max, want] of cases) assert.deepEqual(scaledSize(w, h, max), want, `${w}x${h} in ${max}`);
  assert.deepEqual(scaledSize(1920, 1080), { width: 1568, height: 882 }, 'default bound 1568');
});

/** The rule as a model reads it from the text: the two fractions. */
function ruleFromText(line) {
  const m = /\(x × (\d+) \/ (\d+), y × (\d+) \/ (\d+)\)/.exec(line);
  if (m) return ([x, y]) => [Math.round((x * Number(m[1])) / Number(m[2])), Math.round((y * Number(m[3])) / Number(m[4]))];
  assert.match(line, /a point \(x, y\) in it is the point \(x, y\) on the screen/);
  return (p) => p;
}

test('the stated coordinate rule is exact: a point in the image lands within half a pixel of where it shows on the screen, and the text says the same rule', () => {
  for (const [w, h] of [[1920, 1080], [2560, 1440], [1280, 800], [3840, 2160], [1366, 768], [1080, 1920]]) {
    const sent = scaledSize(w, h);
    const img = { width: w, height: h, sentWidth: sent.width, sentHeight: sent.height };
    const rule = ruleFromText(imageLine('computer.screenshot', { n: 1, of: 1, attached: true, sentMime: 'image/jpeg', ...img }));
    for (let x = 0; x < sent.width; x += 7) {
      const y = Math.floor((x * sent.height) / sent.width);
      const [X, Y] = toScreen([x, y], img);
      assert.ok(Math.abs(X - (x * w) / sent.width) <= 0.5 && Math.abs(Y - (y * h) / sent.height) <= 0.5, `${w}x${h}: (${x}, ${y}) → (${X}, ${Y})`);
      assert.deepEqual(rule([x, y]), [X, Y], `${w}x${h}: the text's rule and toScreen agree at (${x}, ${y})`);
    }
    assert.deepEqual(toScreen([sent.width, sent.height], img), [w - 1, h - 1], 'the far edge stays on the screen');
  }
});

test('what the model reads: each image named in order with its size and the screen\'s, and the rule; or plainly why not', () => {
  const shot = { n: 1, of: 3, attached: true, mime: 'image/png', bytes: 412345, width: 1920, height: 1080, sentWidth: 1280, sentHeight: 720, sentMime: 'image/jpeg' };
  const full = { n: 2, of: 3, attached: true, mime: 'image/png', bytes: 1000, width: 800, height: 600, sentWidth: 800, sentHeight: 600, sentMime: 'image/jpeg' };
  const failed = { n: 3, of: 3, attached: false, mime: 'image/png', bytes: 412345, width: 1920, height: 1080, why: 'the page showed no preview within 8 s after a paste into the input' };
  assert.equal(imageLine('computer.screenshot', shot),
    'image 1 of 3: computer.screenshot, 1280×720 JPEG, the screen is 1920×1080. A point (x, y) in this image is the point (x × 1920 / 1280, y × 1080 / 720) on the screen, that is (x × 1.5, y × 1.5), rounded to the nearest whole pixel.');
  assert.equal(imageLine('computer.screenshot', full), 'image 2 of 3: computer.screenshot, 800×600 JPEG, the screen is 800×600. This image is the screen at full size: a point (x, y) in it is the point (x, y) on the screen.');
  assert.equal(imageLine('computer.screenshot', failed),
    'image 3 of 3: computer.screenshot (1920×1080 PNG 402.7 KiB), not attached: the page showed no preview within 8 s after a paste into the input. You cannot see it.');
  assert.equal(imageLine('charts.plot', { ...shot, width: 2560, height: 1440, sentWidth: 1568, sentHeight: 882 }),
    'image 1 of 3: charts.plot, 1568×882 JPEG, the original is 2560×1440. A point (x, y) in this image is the point (x × 2560 / 1568, y × 1440 / 882) on the original image, that is (x × ≈1.6327, y × ≈1.6327), rounded to the nearest whole pixel.');
  assert.match(imageNote('computer.screenshot', [shot, full, failed]), /^2 of the 3 images of this result are attached to this message, after this text:\nimage 1 of 3: .*\nimage 2 of 3: .*\nimage 3 of 3: .*not attached/);
  assert.match(imageNote('computer.screenshot', [shot]), /^The image of this result is attached to this message, after this text:\nimage 1 of 3/);
  assert.match(imageNote('computer.screenshot', [failed]), /^The image of this result could not be attached to this message:\n/);
  assert.equal(imageNote('computer.echo', []), '');
  assert.equal(pointRule({ width: 1920, height: 1080, sentWidth: 1568, sentHeight: 882 }),
    'A point (x, y) in this image is the point (x × 1920 / 1568, y × 1080 / 882) on the screen, that is (x × ≈1.2245, y × ≈1.2245), rounded to the nearest whole pixel.');
});

test('a file input\'s accept attribute decides which types it takes', () => {
  const cases = [
    ['', 'image/jpeg', true], ['image/*', 'image/jpeg', true], ['image/png,image/jpeg', 'image/jpeg', true],
    ['.png, .JPG', 'image/jpeg', true], ['.pdf,.txt', 'image/jpeg', false], ['image/png', 'image/jpeg', false],
    ['*/*', 'image/jpeg', true], ['application/*', 'image/jpeg', false], ['.webp', 'image/webp', true],
  ];
  for (const [accept, mime, want] of cases) assert.equal(acceptsType(accept, mime), want, `${accept} ${mime}`);
});

test('the attach decision: the person\'s choice, else the preset\'s, else what the page shows; and why', () => {
  const none = () => ({ count: 0, fileInput: false, accept: '' });
  const inputs = (map) => (css) => map[css] || { count: 0, fileInput: false, accept: '' };
  const claude = presetById('claude');
  const near = { css: 'input#upload', accept: 'image/*,.pdf', near: true };
  const far = { css: 'input.avatar', accept: 'image/png,image/jpeg', near: false };
  const cases = [
    ['chosen none', { attachBy: 'none' }, claude, {}, none, { by: 'none', from: 'settings' }],
    ['chosen paste', { attachBy: 'paste' }, claude, {}, none, { by: 'paste', target: '', from: 'settings' }],
    ['chosen drop onto a zone', { attachBy: 'drop', attachTarget: '.zone' }, null, {}, none, { by: 'drop', target: '.zone', from: 'settings' }],
    ['chosen file, found near the input', { attachBy: 'file' }, null, { fileInputs: [near] }, none, { by: 'file', target: 'input#upload', from: 'settings' }],
    ['chosen file, none on the page', { attachBy: 'file' }, null, {}, none, { by: 'file', target: '', problem: 'no file input on the page takes images' }],
    ['chosen file that is not a file input', { attachBy: 'file', attachTarget: 'textarea' }, null, {}, inputs({ textarea: { count: 1, fileInput: false } }), { problem: 'textarea is not a file input' }],
    ['chosen file that refuses JPEG', { attachBy: 'file', attachTarget: '#f' }, null, {}, inputs({ '#f': { count: 1, fileInput: true, accept: '.pdf' } }), { problem: 'the file input takes only .pdf, not JPEG images' }],
    ['the preset\'s file input', {}, claude, {}, inputs({ [claude.attach.target]: { count: 1, fileInput: true, accept: '' } }), { by: 'file', target: claude.attach.target, from: 'preset' }],
    ['the preset\'s paste', {}, presetById('chatgpt'), {}, none, { by: 'paste', from: 'preset', why: 'what ChatGPT is known to take' }],
    ['the preset\'s file input gone: the page decides', {}, claude, { attachButton: 'Attach file' }, none, { by: 'paste', from: 'page' }],
    ['a file input near the input', {}, null, { fileInputs: [far, near], attachButton: 'Attach' }, none, { by: 'file', target: 'input#upload', from: 'page' }],
    ['a drop zone around the input', {}, null, { fileInputs: [far], dropZones: [{ css: '[data-dropzone]', why: 'data-dropzone' }] }, none, { by: 'drop', target: '[data-dropzone]' }],
    ['an attach button only', {}, null, { attachButton: 'Attach file' }, none, { by: 'paste', target: '', guess: true }],
    ['the one file input elsewhere', {}, null, { fileInputs: [far] }, none, { by: 'file', target: 'input.avatar', guess: true }],
    ['nothing: the page takes no images', {}, null, { fileInputs: [{ css: 'input.doc', accept: '.pdf', near: true }] }, none, { by: 'none', from: 'page' }],
  ];
  for (const [name, settings, preset, facts, check, want] of cases) {
    const got = attachMeans(settings, preset, facts, check);
    for (const [k, v] of Object.entries(want)) assert.equal(got[k], v, `${name}: ${k} (${JSON.stringify(got)})`);
    assert.ok(got.why, `${name}: says why`);
  }
  assert.match(attachMeans({}, claude, { attachButton: 'Attach file' }, none).why, /\(the Claude preset’s way, the file input input\[data-testid="file-upload"\], does not work here: input\[data-testid="file-upload"\] matches nothing on the page\)/);
  assert.match(attachMeans({}, null, {}, none).why, /no way to attach images/);
  // Reading the page costs a layout: it is read only when the decision needs it.
  let reads = 0;
  const facts = () => { reads++; return { attachButton: 'Attach' }; };
  attachMeans({}, presetById('chatgpt'), facts, none);
  attachMeans({ attachBy: 'drop' }, null, facts, none);
  assert.equal(reads, 0);
  assert.equal(attachMeans({}, null, facts, none).by, 'paste');
  assert.equal(reads, 1);
  assert.equal(describeMeans({ by: 'paste', target: '' }), 'a paste into the input');
  assert.equal(describeMeans({ by: 'drop', target: '[x]' }), 'a drop onto [x]');
});

test('every preset says how its site takes an image', () => {
  for (const p of PRESETS) {
    assert.ok(['paste', 'drop', 'file'].includes(p.attach?.by), p.id);
    if (p.attach.by === 'file') assert.match(p.attach.target, /input\[/, `${p.id}: a file input`);
  }
  assert.deepEqual([...new Set(PRESETS.map((p) => p.attach.by))].sort(), ['drop', 'file', 'paste']);
});

test('the image settings: the means, its target and the bounds, kept in range', () => {
  const d = normalizeSettings({}).settings;
  assert.deepEqual([d.attachBy, d.attachTarget, d.imageMaxSide, d.maxImages], ['', '', 1568, 4]);
  const s = normalizeSettings({ attachBy: 'file', attachTarget: ' input#upload ', imageMaxSide: '99999', maxImages: 0 }).settings;
  assert.deepEqual([s.attachBy, s.attachTarget, s.imageMaxSide, s.maxImages], ['file', 'input#upload', 8192, 1]);
  assert.equal(normalizeSettings({ attachBy: 'fax' }).settings.attachBy, '');
  assert.equal(normalizeSettings({ attachTarget: '9 lives' }).errors.attachTarget, 'not a class, id or CSS selector');
});

test('the capability prompt says images arrive attached after the result text, or that the site takes none', () => {
  const caps = [{ name: 'computer.screenshot', inputSchema: { type: 'object', properties: {} } }];
  assert.match(buildCapabilityPrompt(caps), /Images a tool returns \(a screenshot\) arrive attached to that same message, after the result text\. .*maps to the tool's coordinates/);
  assert.match(buildCapabilityPrompt(caps, { images: false }), /This site takes no images: an image a tool returns is only named in the result text/);
});

test('the Activity view says what became of each image of a call', () => {
  assert.equal(imagesFact([{ n: 1, attached: true, sentWidth: 1280, sentHeight: 720, name: 'screenshot-1-abcde.jpg' }, { n: 2, attached: false, why: 'the page showed no preview within 8 s after a paste into the input' }]),
    'image 1 attached (1280×720 JPEG, screenshot-1-abcde.jpg); image 2 not attached: the page showed no preview within 8 s after a paste into the input');
  assert.equal(imagesFact(undefined), '');
});

test('the live check under Attach images by says the means and why, or that the page takes no images', () => {
  const cases = [
    [{ by: 'paste', target: '', from: 'preset', why: 'what ChatGPT is known to take' }, '✓ Automatic: a paste into the input (what ChatGPT is known to take)', 'ok'],
    [{ by: 'file', target: 'input#up', from: 'settings', why: 'chosen on the options page' }, '✓ the file input input#up (chosen on the options page)', 'ok'],
    [{ by: 'file', target: '#x', from: 'settings', why: 'chosen', problem: '#x is not a file input' }, '✗ the file input #x: #x is not a file input. Pick the attach button or the drop zone, or choose another way.', 'bad'],
    [{ by: 'none', target: '', from: 'page', why: 'this page shows no way to attach images: no file input, drop zone or attach button near the input' },
      '✗ This page takes no images: it shows no way to attach images: no file input, drop zone or attach button near the input. The text will say so; choose a way above if the page does take them.', 'warn'],
    [{ by: 'none', target: '', from: 'settings', why: 'x' }, 'Images are not attached on this site: the text names them, and the model cannot see them.', ''],
    [{ by: 'paste', target: '', from: 'page', guess: true, why: 'the page has an attach button' },
      'Automatic, a guess: a paste into the input (the page has an attach button). The first image shows whether the page takes it; Pick to be sure.', ''],
  ];
  for (const [means, text, kind] of cases) assert.deepEqual(attachMessage(means), { text, kind });
});
