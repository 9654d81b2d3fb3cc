// Images from tool results attached to the chat, in headless Firefox ESR
// (the extension as a temporary add-on, its event page scaling and encoding
// the images), as tests/e2e/images_realchat.test.js and
// images_replicas.test.js prove them in Chromium: on the real chat UI
// (assistant-ui with its own attachments, built from npm) a scripted vision
// model gets the screenshot of a real MCP server (a known pattern) attached,
// scaled as the text states, and its click computed with the stated rule
// lands on the target at three screen sizes; every chat replica takes the
// screenshot the way its site is known to (paste, drop, file input) and the
// click computed from the file it sent lands; a rate limit and a dropped
// attachment are said; a page that takes no images gives the honest text.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { serve } from '../e2e/lib/server.js';
import { REPO, readJsonl, tempDir } from '../e2e/lib/harness.js';
import { startModelServer } from '../e2e/lib/model_server.js';
import { decode, differenceFromPattern, findTarget, patternProvider, ruleFrom, visionModel, writeScreens } from '../e2e/lib/pattern.js';
import { forgetSiteScript, launchFirefox, waitFor } from './lib/firefox.js';
import { PRESETS } from '../../extension/bridge/core/presets.js';
import { describeMeans } from '../../extension/bridge/core/attach_means.js';
import { scaledSize } from '../../extension/bridge/core/result_images.js';
import { TEST_ACKS_KEY } from '../../extension/bridge/core/judge.js';

const DIST = path.join(REPO, 'tests', 'e2e', 'fixtures', 'realchat', 'dist');
const SCREENS = [[1920, 1080], [2560, 1440], [1280, 800]];

let dir;
let real;
let replicas;
let plain;
let model;
let vision;
let ff;
let screens = {};

before(async () => {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) throw new Error(`${DIST} is not built: run tests/setup.sh`);
  dir = tempDir('gnosis-ff-images-');
  real = await serve({ dir: DIST });
  replicas = await serve();
  plain = await serve();
  vision = visionModel(() => screens.main);
  model = await startModelServer(vision.script);
  const grants = ['desk.screenshot', 'desk.click'];
  ff = await launchFirefox({
    policy: { origins: { [real.origin]: grants, [replicas.origin]: grants, [plain.origin]: grants } },
    providers: [patternProvider({ state: path.join(dir, 'screens.json'), log: path.join(dir, 'clicks.jsonl') })],
  });
});

after(async () => {
  await ff?.close();
  await model?.close();
  for (const s of [real, replicas, plain]) await s?.close();
});

/** Sets a screen of the pattern server: 'main' is the one a call without a screen argument (the vision model's) sees. */
function setScreen(name, width, height) {
  screens = { ...screens, [name]: { width, height }, ...(name === 'main' ? { width, height } : {}) };
  writeScreens(path.join(dir, 'screens.json'), screens);
}
const clicksOn = (name) => readJsonl(path.join(dir, 'clicks.jsonl')).filter((c) => c.tool === 'click' && (c.screen || 'main') === name);
const split = (text) => {
  const at = text.indexOf('\n\n');
  return { json: JSON.parse(at < 0 ? text : text.slice(0, at)), note: at < 0 ? '' : text.slice(at + 2) };
};

/** Opens the options page for origin, sets what fields says (or keeps the preset), and starts the bridge with a trusted click. */
async function arm(origin, fields = {}) {
  const options = await ff.openExtensionPage(`bridge/options/options.html?origin=${encodeURIComponent(origin)}`);
  await waitFor(() => options.evaluate('document.body.dataset.ready !== undefined'), { what: 'options page ready' });
  await waitFor(async () => /connected/i.test(await options.text('#host-state')) && !/not connected|checking/i.test(await options.text('#host-state')), { what: 'host connected' });
  for (const [id, v] of Object.entries(fields)) await options.fill(`#${id}`, v);
  await options.fill('#debounceMs', 300);
  await options.click('#start');
  await waitFor(async () => (await options.text('#armed-state'))?.startsWith('Armed'), { what: 'armed' });
  await options.evaluate(`chrome.storage.session.set({ [${JSON.stringify(TEST_ACKS_KEY)}]: true }).then(() => true)`);
  return options;
}

test('a vision model on the real chat UI gets each screenshot attached and clicks its target, at three screen sizes', async () => {
  setScreen('main', ...SCREENS[0]);
  const chat = await ff.newTab(real.url(`/index.html?model=${encodeURIComponent(model.url)}`));
  await waitFor(() => chat.evaluate('!!document.querySelector(".aui-composer-input")'), { what: 'the chat UI' });
  const options = await arm(real.origin, {
    source: '.aui-assistant-message-content', destination: '.aui-composer-input', sendButton: '.aui-composer-send', streaming: '.aui-composer-cancel', autoSend: true,
  });
  await waitFor(async () => /^Automatic, a guess: a paste into the input/.test(await options.text('#attachTarget-match')), { what: 'the live check of Attach images by' });
  for (const [i, [width, height]] of SCREENS.entries()) {
    setScreen('main', width, height);
    await chat.activate();
    await chat.click('.aui-composer-input');
    await chat.type(`Click the red square (${width}x${height}).\n`);
    await waitFor(() => clicksOn('main').length === i + 1, { what: `the click on the ${width}×${height} screen`, timeoutMs: 60_000 });
    const click = clicksOn('main')[i];
    assert.equal(click.hit, true, `(${click.x}, ${click.y}) is on the target of the ${width}×${height} screen`);
    const got = vision.seen[i];
    const sent = scaledSize(width, height);
    assert.deepEqual([got.images, got.mime, got.width, got.height], [1, 'image/jpeg', sent.width, sent.height]);
    assert.ok(got.difference < 8, `the pattern's pixels as scaled (mean difference ${got.difference.toFixed(2)})`);
    assert.match(got.text, new RegExp(`image 1 of 1: desk\\.screenshot, ${sent.width}×${sent.height} JPEG, the screen is ${width}×${height}\\.`));
    await waitFor(async () => (await chat.evaluate('window.realchat.sent()')).filter((m) => /hit\\?":true/.test(m)).length === i + 1 && model.requests.length >= 3 * (i + 1),
      { what: 'the click result sent and answered' });
  }
  assert.equal(clicksOn('main').length, 3, 'each click ran once');
});

/** An extension page kept open for the file: it forgets the replicas' origin before each replica. */
let control;

/**
 * Opens a replica (with query, its faults) on the replicas' origin, armed with its preset, which the
 * options page recognises by the page's structure (one origin: each preset in turn, its settings new).
 * Returns {chat, options}.
 */
async function openReplica(preset, query = '') {
  const chat = await ff.newTab(replicas.url(`/sites/${preset.id}.html${query}`));
  control ??= await ff.openExtensionPage('bridge/options/options.html');
  await control.evaluate(forgetSiteScript(replicas.origin));
  const options = await ff.openExtensionPage(`bridge/options/options.html?origin=${encodeURIComponent(replicas.origin)}`);
  await waitFor(async () => (await options.text('#preset-state')) === `preset: ${preset.name}`, { what: `preset: ${preset.name}` });
  await waitFor(async () => (await options.text('#attachTarget-match')) === `✓ Automatic: ${describeMeans(preset.attach)} (what ${preset.name} is known to take)`, { what: `${preset.id}: the preset's way` });
  await options.fill('#debounceMs', 300);
  // Start once the preset's settings are saved and the button can be pressed.
  await waitFor(() => options.evaluate(`document.getElementById('source').value === ${JSON.stringify(preset.source)} && !document.getElementById('start').disabled`), { what: `${preset.id}: Start enabled` });
  await options.click('#start');
  await waitFor(async () => (await options.text('#armed-state'))?.startsWith('Armed'), { what: `${preset.id} armed` });
  await chat.activate();
  await waitFor(() => chat.evaluate('document.readyState === "complete"'), { what: 'the replica loaded' });
  // The tab was open before Start, which configures it before it says Armed: a reply now is a new one.
  return { chat, options };
}

/** Stops the bridge on the replicas' origin and closes the replica's tabs (an old tab's report would be the next one's Last line). */
async function stop(options, preset, chat) {
  await options.click('#stop');
  await waitFor(async () => (await options.text('#armed-state')) === 'Stopped', { what: `${preset.id} stopped` });
  for (const p of [chat, options]) await ff.bidi.send('browsingContext.close', { context: p.context });
}

test('every chat replica takes the screenshot the way its site is known to, and the click computed from the file it sent lands', async () => {
  for (const preset of PRESETS) {
    const [width, height] = SCREENS[PRESETS.indexOf(preset) % SCREENS.length];
    setScreen(preset.id, width, height);
    const { chat, options } = await openReplica(preset);
    await chat.evaluate(`window.chat.stream(${JSON.stringify(JSON.stringify({ capability: 'desk.screenshot', arguments: { screen: preset.id } }))})`);
    const sentText = await waitFor(async () => (await chat.evaluate('window.chat.sent'))[0], { what: `${preset.id}: the result sent`, timeoutMs: 40_000 });
    const { note } = split(sentText);
    const files = await chat.evaluate('window.chat.sentImages(0)');
    const sent = scaledSize(width, height);
    assert.equal(files.length, 1, `${preset.id}: one image with the message (${note})`);
    const decoded = await decode(files[0].base64);
    assert.deepEqual([decoded.width, decoded.height], [sent.width, sent.height], preset.id);
    assert.ok(await differenceFromPattern(decoded, width, height) < 8, `${preset.id}: the pattern's pixels`);
    assert.match(note, new RegExp(`image 1 of 1: desk\\.screenshot, ${sent.width}×${sent.height} JPEG, the screen is ${width}×${height}\\. `));
    const target = findTarget(decoded);
    const [x, y] = ruleFrom(note)([target.x, target.y]);
    await chat.evaluate(`window.chat.stream(${JSON.stringify(JSON.stringify({ capability: 'desk.click', arguments: { screen: preset.id, x, y } }))})`);
    await waitFor(() => clicksOn(preset.id).length === 1, { what: `${preset.id}: the click` });
    assert.equal(clicksOn(preset.id)[0].hit, true, `${preset.id}: (${x}, ${y}) on the target`);
    await waitFor(async () => (await chat.evaluate('window.chat.sent')).length === 2, { what: `${preset.id}: the click's result sent` });
    await stop(options, preset, chat);
  }
});

test('a site that rate-limits uploads, and a page that drops the attachment: the text says which image is missing and why', async () => {
  setScreen('faults', 1280, 800);
  const chatgpt = PRESETS.find((p) => p.id === 'chatgpt');
  let { chat, options } = await openReplica(chatgpt, '?limit=1');
  await chat.evaluate(`window.chat.stream(${JSON.stringify(JSON.stringify({ capability: 'desk.screenshot', arguments: { screen: 'faults', count: 2 } }))})`);
  let { note } = split(await waitFor(async () => (await chat.evaluate('window.chat.sent'))[0], { what: 'the rate-limited result sent', timeoutMs: 40_000 }));
  assert.match(note, /^1 of the 2 images of this result is attached to this message, after this text:\n.*\nimage 2 of 2: desk\.screenshot \(1280×800 PNG .*\), not attached: the page showed no preview within 8 s after a paste into the input; it said: “You have reached the upload limit for now\. Try again in a minute\.”\. You cannot see it\.$/);
  assert.equal((await chat.evaluate('window.chat.sentImages(0)')).length, 1);
  // The options page follows the site while it is shown.
  await options.activate();
  await waitFor(async () => /but not attached: image 2 of 2/.test(await options.text('#last-event')), { what: 'the Last line' });
  await stop(options, chatgpt, chat);
  const claude = PRESETS.find((p) => p.id === 'claude');
  ({ chat, options } = await openReplica(claude, '?fail=1'));
  await chat.evaluate(`window.chat.stream(${JSON.stringify(JSON.stringify({ capability: 'desk.screenshot', arguments: { screen: 'faults' } }))})`);
  ({ note } = split(await waitFor(async () => (await chat.evaluate('window.chat.sent'))[0], { what: 'the dropped result sent', timeoutMs: 40_000 })));
  assert.match(note, /not attached: the page showed it, then removed it; it said: “Upload failed: screenshot-1-[a-z0-9]+\.jpg could not be processed\.”\. You cannot see it\.$/);
  assert.equal((await chat.evaluate('window.chat.sentImages(0)')).length, 0);
  await stop(options, claude, chat);
  assert.equal(readJsonl(path.join(dir, 'clicks.jsonl')).filter((c) => c.tool === 'screenshot' && c.screen === 'faults').length, 2, 'each call ran once');
});

test('a page that takes no images: the model reads that the image could not be attached, and the result still goes', async () => {
  setScreen('plain', 1280, 800);
  const chat = await ff.newTab(plain.url('/chat.html'));
  const options = await arm(plain.origin, { source: '.assistant', destination: '#prompt', autoSend: true, sendButton: '#send' });
  await waitFor(async () => /✗ This page takes no images/.test(await options.text('#attachTarget-match')), { what: 'the live check' });
  await chat.activate();
  await chat.evaluate(`window.chat.stream(${JSON.stringify(JSON.stringify({ capability: 'desk.screenshot', arguments: { screen: 'plain' } }))})`);
  const text = await waitFor(async () => (await chat.evaluate('window.chat.sent'))[0], { what: 'the result sent', timeoutMs: 40_000 });
  const { json, note } = split(text);
  assert.equal(json.ok, true);
  assert.match(note, /^The image of this result could not be attached to this message:\nimage 1 of 1: desk\.screenshot \(1280×800 PNG .*\), not attached: this page shows no way to attach images: no file input, drop zone or attach button near the input\. You cannot see it\.$/);
});
