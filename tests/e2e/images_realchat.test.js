// The chat model sees what it operates, on a real open-source chat UI
// (fixtures/realchat: assistant-ui built from its npm packages, with its own
// image attachments) whose model is a scripted OpenAI-compatible vision model
// (lib/model_server.js). The model calls the screenshot tool of a real MCP
// server (fixtures/pattern_screen_mcp.mjs: a known test pattern with a red
// target); the bridge attaches the screenshot to the chat message as a person
// pastes an image (found on the page: an attach button, no file input); the
// model's next request carries it as an image part whose decoded size and
// pixels are the pattern's as scaled, and whose text names it and states the
// point rule; the model finds the target in the image, applies the rule, and
// its click lands on the target — at three screen sizes. The same UI without
// its attachments takes no images: the options page says so, and the model
// reads that the image could not be attached.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fakeMunim, hostConfig, launch, readJsonl, REPO, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { startModelServer } from './lib/model_server.js';
import { judged, ackCount } from './lib/bridge.js';
import { patternProvider, visionModel, writeScreens } from './lib/pattern.js';
import { scaledSize } from '../../extension/bridge/core/result_images.js';

const DIST = path.join(REPO, 'tests', 'e2e', 'fixtures', 'realchat', 'dist');
const SCREENS = [[1920, 1080], [2560, 1440], [1280, 800]];

let site;
let plain; // the same UI without attachments
let model;
let env;
let dir;
let vision; // the scripted vision model and what it saw

before(async () => {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) throw new Error(`${DIST} is not built: run tests/setup.sh`);
  dir = tempDir('gnosis-images-');
  site = await serve({ dir: DIST });
  plain = await serve({ dir: DIST });
  vision = visionModel(() => JSON.parse(fs.readFileSync(path.join(dir, 'screen.json'), 'utf8')));
  model = await startModelServer(vision.script);
  const grants = ['desk.screenshot', 'desk.click'];
  const config = hostConfig({
    fakemunim: await fakeMunim(), log: path.join(dir, 'munim.jsonl'),
    policy: { origins: { [site.origin]: grants, [plain.origin]: grants } },
    providers: [patternProvider({ state: path.join(dir, 'screen.json'), log: path.join(dir, 'clicks.jsonl') })],
  });
  env = await launch({ config, grantOrigins: ['http://127.0.0.1/*'] });
});

after(async () => {
  await env?.close();
  await model?.close();
  await site?.close();
  await plain?.close();
});

const calls = (tool) => readJsonl(path.join(dir, 'clicks.jsonl')).filter((c) => c.tool === tool);
const clicks = () => calls('click');

/** Fills the options page's fields for assistant-ui's thread and starts the bridge. */
async function arm(options) {
  await options.locator('body[data-ready]').waitFor();
  const fill = async (label, v) => {
    const el = options.getByLabel(label, { exact: true });
    await el.fill(v);
    await el.dispatchEvent('change');
  };
  await fill('Extract from', '.aui-assistant-message-content');
  await fill('Inject into', '.aui-composer-input');
  await fill('Send button', '.aui-composer-send');
  await fill('Still replying while', '.aui-composer-cancel');
  await options.getByLabel('Auto-send', { exact: true }).check();
  await options.getByLabel('Auto-send', { exact: true }).dispatchEvent('change');
  await options.getByRole('button', { name: 'Start', exact: true }).click();
  await waitFor(async () => (await options.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed' });
}

/** Types a message into the chat as a person would and sends it with Enter. */
async function say(chat, text) {
  await chat.locator('.aui-composer-input').click();
  await chat.keyboard.type(text);
  await chat.keyboard.press('Enter');
}

describe('a vision model on a real chat UI operates a screen through its screenshots', () => {
  test('at three screen sizes the model gets the screenshot attached, scaled as stated, and its click lands on the target', async () => {
    const chat = await env.newPage(site.url(`/index.html?model=${encodeURIComponent(model.url)}`));
    await chat.locator('.aui-composer-input').waitFor();
    const options = await env.openOptions(`?origin=${encodeURIComponent(site.origin)}`);
    await arm(options);
    // Found on the page: assistant-ui's paperclip button makes its file input only when clicked; pasting is how it takes images.
    await waitFor(async () => /^Automatic, a guess: a paste into the input \(the page has an attach button \(“Attach file”\)/.test(await options.locator('#attachTarget-match').textContent()),
      { what: 'the live check of Attach images by' });
    for (const w of [360, 480]) {
      await options.setViewportSize({ width: w, height: 900 });
      await env.screenshot(options.locator('.attach-field'), `options_attach_${w}`);
    }

    for (const [i, [width, height]] of SCREENS.entries()) {
      writeScreens(path.join(dir, 'screen.json'), { width, height });
      await say(chat, `Click the red square on my screen (${width}×${height}).`);
      await waitFor(() => clicks().length === i + 1, { what: `the click on the ${width}×${height} screen`, timeoutMs: 60_000 });
      const click = clicks()[i];
      assert.equal(click.hit, true, `the click at (${click.x}, ${click.y}) lands on the target of the ${width}×${height} screen`);

      const got = vision.seen[i];
      const sent = scaledSize(width, height);
      assert.equal(got.images, 1);
      assert.equal(got.mime, 'image/jpeg');
      assert.deepEqual([got.width, got.height], [sent.width, sent.height], 'the image is the screen scaled to fit 1568 px');
      assert.ok(got.difference < 8, `the image's pixels are the pattern's as scaled (mean difference ${got.difference.toFixed(2)} of 255)`);
      assert.match(got.text, new RegExp(`image 1 of 1: desk\\.screenshot, ${sent.width}×${sent.height} JPEG, the screen is ${width}×${height}\\.`));
      assert.match(got.text, /"data":"\[image 1 of 1: see below\]"/);
      // The model's answer after the click is prose: the loop ends, nothing runs twice.
      await waitFor(async () => (await chat.evaluate(() => window.realchat.sent())).filter((m) => /hit\\?":true/.test(m)).length === i + 1 && model.requests.length >= 3 * (i + 1),
        { what: 'the click result sent and answered' });
    }
    const names = await chat.evaluate(() => window.realchat.sentImages());
    assert.equal(names.filter((n) => n.length).length, 3, 'three messages carried one image each');
    assert.ok(names.flat().every((n) => /^screenshot-1-[a-z0-9]+\.jpg$/.test(n)), names.flat().join());
    // The Last line says the image went with the result; Activity records it.
    await waitFor(async () => /result delivered \(send\)/.test(await options.locator('#last-event').textContent()), { what: 'the Last line' });
    const entries = await options.evaluate(() => chrome.runtime.sendMessage({ type: 'activity.list', filter: {} }));
    const shots = entries.entries.filter((e) => e.capability === 'desk.screenshot');
    // Should this fail, it says whether the server ran a fourth screenshot and whether the model was asked more often.
    assert.equal(shots.length, 3, JSON.stringify({ serverScreenshots: calls('screenshot').length, clicks: clicks().length, modelRequests: model.requests.length, entries: shots }));
    assert.ok(shots.every((e) => e.images?.length === 1 && e.images[0].attached === true), JSON.stringify(shots.map((e) => e.images)));
    assert.equal(clicks().length, 3, 'each click ran once');
    assert.equal(calls('screenshot').length, 3, 'each screenshot ran once');
    // The Activity view says it, entry by entry.
    const activity = await env.openOptions(`?origin=${encodeURIComponent(site.origin)}#activity`);
    const shot = activity.locator('#activity-list li.entry', { has: activity.locator('code.cap', { hasText: 'desk.screenshot' }) }).first();
    await shot.waitFor();
    await shot.locator('summary').click();
    assert.match(await shot.locator('dl').textContent(), /Imagesimage 1 attached \(1280×800 JPEG, screenshot-1-[a-z0-9]+\.jpg\)/);
    await activity.setViewportSize({ width: 400, height: 900 });
    await env.screenshot(shot, 'activity_images_400');
    await activity.close();
    await options.close();
    await chat.close();
  });

  test('the same UI without attachments takes no images: the options page says so, and the model reads that the image could not be attached', async () => {
    writeScreens(path.join(dir, 'screen.json'), { width: 1280, height: 800 });
    const chat = await env.newPage(plain.url('/index.html'));
    await chat.locator('.aui-composer-input').waitFor();
    const options = await env.openOptions(`?origin=${encodeURIComponent(plain.origin)}`);
    await arm(options);
    await waitFor(async () => /✗ This page takes no images: it shows no way to attach images/.test(await options.locator('#attachTarget-match').textContent()),
      { what: 'the live check says the page takes no images' });
    const before = await ackCount(env, plain.origin);
    await chat.evaluate(() => window.realchat.queue('{"capability": "desk.screenshot", "arguments": {}}'));
    await say(chat, 'Look at my screen.');
    const text = await waitFor(async () => (await chat.evaluate(() => window.realchat.sent())).find((m) => m.includes('desk.screenshot') || m.includes('image 1 of 1')), { what: 'the result sent', timeoutMs: 30_000 });
    assert.match(text, /The image of this result could not be attached to this message:\nimage 1 of 1: desk\.screenshot \(1280×800 PNG .*\), not attached: this page shows no way to attach images: no file input, drop zone or attach button near the input\. You cannot see it\.$/);
    await judged(env, plain.origin, { after: before });
    await waitFor(async () => /result delivered \(send\), but not attached: image 1 of 1 \(desk\.screenshot\)/.test(await options.locator('#last-event').textContent()), { what: 'the Last line says the image is missing' });
    assert.match(await chat.locator('gnosis-notice [role=alert]').textContent(), /could not attach image 1 of 1 \(desk\.screenshot\)/);
    await options.close();
    await chat.close();
  });
});
