// Images from tool results on every chat replica (fixtures/sites/), each
// taking images the way its site is known to (paste, drop, file input; some
// upload for a while, with send disabled meanwhile): the preset's way shows
// on the options page; a screenshot of a real MCP server (fixtures/
// pattern_screen_mcp.mjs, a known pattern with a red target) goes with the
// message that carries its result, and counts only once the page shows it;
// the file sent is the pattern as scaled, the text names it and states the
// point rule, and a click computed from the image with that rule lands on the
// target — at three screen sizes. Then what goes wrong: a site that
// rate-limits uploads, a page that drops an attachment, a file input that
// refuses the type, more images than a message takes, and a page that takes
// no images. Each says what happened on the page, the badge and the options
// page; the text result is still delivered and nothing runs twice.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fakeMunim, hostConfig, launch, readJsonl, tempDir, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armFromOptions, armPreset, armedIn, badgeOf, badgeText, storedSettings, waitForSent } from './lib/bridge.js';
import { decode, differenceFromPattern, findTarget, patternProvider, ruleFrom, writeScreens } from './lib/pattern.js';
import { PRESETS, presetById } from '../../extension/bridge/core/presets.js';
import { describeMeans } from '../../extension/bridge/core/attach_means.js';
import { scaledSize } from '../../extension/bridge/core/result_images.js';

const SCREENS = [[1920, 1080], [2560, 1440], [1280, 800]];
const SETTLE = 300;

const servers = {};
const faults = {}; // an origin for each fault
let plain;
let env;
let dir;
const screens = {}; // the pattern server's screens by name

before(async () => {
  dir = tempDir('gnosis-images-');
  for (const p of PRESETS) servers[p.id] = await serve();
  for (const f of ['limit', 'drop', 'refuse', 'many', 'pick']) faults[f] = await serve();
  plain = await serve();
  const grants = ['desk.screenshot', 'desk.click'];
  const origins = Object.fromEntries([...Object.values(servers), ...Object.values(faults), plain].map((s) => [s.origin, grants]));
  const config = hostConfig({
    fakemunim: await fakeMunim(), log: path.join(dir, 'munim.jsonl'), policy: { origins },
    providers: [patternProvider({ state: path.join(dir, 'screens.json'), log: path.join(dir, 'clicks.jsonl') })],
  });
  env = await launch({ config, grantOrigins: ['http://127.0.0.1/*'] });
});

after(async () => {
  await env?.close();
  for (const s of [...Object.values(servers), ...Object.values(faults), plain]) await s?.close();
});

function setScreen(name, width, height) {
  screens[name] = { width, height };
  writeScreens(path.join(dir, 'screens.json'), screens);
}
const callsOn = (name, tool) => readJsonl(path.join(dir, 'clicks.jsonl')).filter((c) => c.screen === name && c.tool === tool);
const clicksOn = (name) => callsOn(name, 'click');
const call = (capability, args) => JSON.stringify({ capability, arguments: args });

/** The sent message k (0-based) as {json, note}: the result's JSON and the lines about its images. */
function split(text) {
  const at = text.indexOf('\n\n');
  return at < 0 ? { json: JSON.parse(text), note: '' } : { json: JSON.parse(text.slice(0, at)), note: text.slice(at + 2) };
}

describe('every replica takes the screenshot the way its site is known to, and the click computed from it lands', { concurrency: 5 }, () => {
  for (const preset of PRESETS) {
    test(`${preset.name}: ${describeMeans(preset.attach)}`, async () => {
      const site = servers[preset.id];
      const chat = await env.newPage(site.url(`/sites/${preset.id}.html`));
      const options = await env.openOptions(`?origin=${encodeURIComponent(site.origin)}`);
      await options.locator('body[data-ready]').waitFor();
      await waitFor(async () => (await options.locator('#attachTarget-match').textContent()) === `✓ Automatic: ${describeMeans(preset.attach)} (what ${preset.name} is known to take)`,
        { what: `${preset.id}: the preset's way in the live check` });
      await armPreset(env, preset.name, { debounceMs: SETTLE, options });
      await armedIn(env, chat);
      let n = 0;
      for (const [width, height] of SCREENS) {
        setScreen(preset.id, width, height);
        await chat.evaluate((c) => window.chat.stream(c), call('desk.screenshot', { screen: preset.id }));
        const shot = split((await waitForSent(chat, ++n, 40_000))[n - 1]);
        const files = await chat.evaluate((k) => window.chat.sentImages(k), n - 1);
        const sent = scaledSize(width, height);
        assert.equal(files.length, 1, `${preset.id}: one image went with the message`);
        assert.equal(files[0].type, 'image/jpeg');
        const decoded = await decode(files[0].base64);
        assert.deepEqual([decoded.width, decoded.height], [sent.width, sent.height], `${preset.id}: scaled to fit 1568 px`);
        const difference = await differenceFromPattern(decoded, width, height);
        assert.ok(difference < 8, `${preset.id}: the pattern's pixels as scaled (mean difference ${difference.toFixed(2)})`);
        assert.equal(shot.json.result.content[1].data, '[image 1 of 1: see below]');
        assert.match(shot.note, new RegExp(`^The image of this result is attached to this message, after this text:\\nimage 1 of 1: desk\\.screenshot, ${sent.width}×${sent.height} JPEG, the screen is ${width}×${height}\\. `));
        const target = findTarget(decoded);
        const [x, y] = ruleFrom(shot.note)([target.x, target.y]);
        await chat.evaluate((c) => window.chat.stream(c), call('desk.click', { screen: preset.id, x, y }));
        const clicked = split((await waitForSent(chat, ++n, 40_000))[n - 1]);
        assert.match(clicked.json.result.content[0].text, /"hit":true/, `${preset.id} at ${width}×${height}: (${x}, ${y}) is on the target`);
        assert.equal(clicked.note, '', 'a result without images has no image lines');
      }
      assert.equal(clicksOn(preset.id).length, 3, 'each click ran once');
      assert.equal(callsOn(preset.id, 'screenshot').length, 3, 'each screenshot ran once');
      assert.equal(await chat.evaluate(() => window.chat.attached().length), 0, 'nothing was left in the composer');
      await options.close();
      await chat.close();
    });
  }
});

describe('Pick for Attach images by', () => {
  test('a click on the attach button takes the file input behind it; a click on the input means pasting; the live check follows', async () => {
    const chat = await env.newPage(faults.pick.url('/sites/claude.html'));
    const options = await env.openOptions(`?origin=${encodeURIComponent(faults.pick.origin)}`);
    await options.locator('body[data-ready]').waitFor();
    await waitFor(async () => (await options.locator('#preset-state').textContent()) === 'preset: Claude', { what: 'the preset' });
    // An unedited preset keeps its elements folded: the person opens the fold.
    await waitFor(async () => {
      if (await options.locator('#attachBy').isVisible()) return true;
      await options.locator('#elements summary').click();
      return options.locator('#attachBy').isVisible();
    }, { what: 'the Page elements fold open' });
    const pickOn = async (css) => {
      await options.getByRole('button', { name: 'Pick Attach images by' }).click();
      await chat.locator('gnosis-pick').waitFor({ state: 'attached' });
      const box = await chat.locator(css).boundingBox();
      await chat.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await chat.mouse.down();
      await chat.mouse.up();
    };
    await pickOn('button[aria-label="Add files"]');
    await waitFor(async () => (await options.locator('#attachBy').inputValue()) === 'file', { what: 'the file input picked' });
    const target = await options.getByLabel('File input or drop zone', { exact: true }).inputValue();
    assert.equal(await chat.evaluate((css) => document.querySelector(css)?.matches('input[type="file"][data-testid="file-upload"]'), target), true, target);
    await waitFor(async () => (await options.locator('#attachTarget-match').textContent()) === `✓ the file input ${target} (chosen on the options page)`, { what: 'the live check' });
    for (const w of [360, 400, 480]) {
      await options.setViewportSize({ width: w, height: 900 });
      await env.screenshot(options.locator('.attach-field'), `options_attach_picked_${w}`);
    }
    await pickOn('div.ProseMirror');
    await waitFor(async () => (await options.locator('#attachBy').inputValue()) === 'paste', { what: 'pasting picked' });
    await waitFor(async () => /^✓ a paste into .*\(chosen on the options page\)$/.test(await options.locator('#attachTarget-match').textContent()), { what: 'the live check' });
    const saved = await storedSettings(env, faults.pick.origin);
    assert.equal(saved.attachBy, 'paste');
    await options.close();
    await chat.close();
  });
});

describe('what goes wrong is said, the text result still goes, nothing runs twice', () => {
  /** Opens a replica with a fault on that fault's own origin, armed with its preset. */
  async function open(id, fault, query) {
    const chat = await env.newPage(faults[fault].url(`/sites/${id}.html?${query}`));
    const options = await env.openOptions(`?origin=${encodeURIComponent(faults[fault].origin)}`);
    await armPreset(env, presetById(id).name, { debounceMs: SETTLE, options });
    await armedIn(env, chat);
    return { chat, options };
  }

  test('a site that rate-limits uploads: the first image goes, the second is said to be refused, with what the page said', async () => {
    setScreen('limit', 1920, 1080);
    const { chat, options } = await open('chatgpt', 'limit', 'limit=1');
    await chat.evaluate((c) => window.chat.stream(c), call('desk.screenshot', { screen: 'limit', count: 2 }));
    const { json, note } = split((await waitForSent(chat, 1, 40_000))[0]);
    assert.equal(json.ok, true);
    assert.deepEqual(json.result.content.slice(1).map((c) => c.data), ['[image 1 of 2: see below]', '[image 2 of 2: see below]']);
    assert.match(note, /^1 of the 2 images of this result is attached to this message, after this text:\nimage 1 of 2: desk\.screenshot, 1568×882 JPEG, the screen is 1920×1080\. .*\nimage 2 of 2: desk\.screenshot \(1920×1080 PNG .*\), not attached: the page showed no preview within 8 s after a paste into the input; it said: “You have reached the upload limit for now\. Try again in a minute\.”\. You cannot see it\.$/);
    assert.equal((await chat.evaluate(() => window.chat.sentImages(0))).length, 1, 'the message carried the one image the page took');
    assert.equal(callsOn('limit', 'screenshot').length, 1, 'the call ran once');
    await waitFor(async () => /result delivered \(send\), but not attached: image 2 of 2 \(desk\.screenshot\): the page showed no preview/.test(await options.locator('#last-event').textContent()), { what: 'the Last line' });
    // The worker writes the Last line, then the badge (bridge/worker/reply_port.js reportDelivery).
    await waitFor(async () => (await badgeText(env, chat.url())) === '!', { what: 'the error badge' }).catch(async (err) => {
      // What wrote over it, if anything: the badge's title and the Last line say which verdict came last.
      const { title } = await badgeOf(env, chat.url());
      throw new Error(`${err.message}; the badge's title: ${title}; the Last line: ${await options.locator('#last-event').textContent()}`);
    });
    assert.match(await chat.locator('gnosis-notice [role=alert]').textContent(), /could not attach image 2 of 2 \(desk\.screenshot\)/);
    await options.close();
    await chat.close();
  });

  test('a page that drops the attachment when its upload fails: the text says so and the message goes without it', async () => {
    setScreen('drop', 1280, 800);
    const { chat, options } = await open('claude', 'drop', 'fail=1');
    await chat.evaluate((c) => window.chat.stream(c), call('desk.screenshot', { screen: 'drop' }));
    const { json, note } = split((await waitForSent(chat, 1, 40_000))[0]);
    assert.equal(json.ok, true);
    assert.match(note, /^The image of this result could not be attached to this message:\nimage 1 of 1: desk\.screenshot \(1280×800 PNG .*\), not attached: the page showed it, then removed it; it said: “Upload failed: screenshot-1-[a-z0-9]+\.jpg could not be processed\.”\. You cannot see it\.$/);
    assert.deepEqual(await chat.evaluate(() => window.chat.sentImages(0)), []);
    assert.equal(callsOn('drop', 'screenshot').length, 1, 'the call ran once');
    await waitFor(async () => /but not attached: image 1 of 1 \(desk\.screenshot\): the page showed it, then removed it/.test(await options.locator('#last-event').textContent()), { what: 'the Last line' });
    // The Activity entry records it.
    const list = await options.evaluate(() => chrome.runtime.sendMessage({ type: 'activity.list', filter: {} }));
    const entry = list.entries.find((e) => e.origin === faults.drop.origin && e.capability === 'desk.screenshot');
    assert.match(entry.images[0].why, /the page showed it, then removed it/);
    await options.close();
    await chat.close();
  });

  test('a file input that refuses the type: nothing is handed over, the text says why', async () => {
    setScreen('refuse', 1280, 800);
    const { chat, options } = await open('kimi', 'refuse', 'accept=.pdf');
    // The preset's file input refuses JPEG: the page is read instead, and its attach button only suggests pasting.
    await waitFor(async () => /^Automatic, a guess: a paste into the input .*the Kimi preset’s way, the file input input\[type="file"\], does not work here: the file input takes only \.pdf, not JPEG images\)/.test(await options.locator('#attachTarget-match').textContent()),
      { what: 'the live check says why' });
    await chat.evaluate((c) => window.chat.stream(c), call('desk.screenshot', { screen: 'refuse' }));
    const { note } = split((await waitForSent(chat, 1, 40_000))[0]);
    assert.match(note, /not attached: the page took neither a paste into the input nor a drop onto it\. You cannot see it\.$/);
    assert.deepEqual(await chat.evaluate(() => window.chat.sentImages(0)), []);
    await options.close();
    await chat.close();
  });

  test('more images than a message takes: the first four go, the text says which were left out', async () => {
    setScreen('many', 1280, 800);
    const { chat, options } = await open('huggingchat', 'many', '');
    await chat.evaluate((c) => window.chat.stream(c), call('desk.screenshot', { screen: 'many', count: 6 }));
    const { note } = split((await waitForSent(chat, 1, 40_000))[0]);
    const lines = note.split('\n');
    assert.equal(lines[0], '4 of the 6 images of this result are attached to this message, after this text:');
    for (const k of [1, 2, 3, 4]) assert.match(lines[k], new RegExp(`^image ${k} of 6: desk\\.screenshot, 1280×800 JPEG, the screen is 1280×800\\. This image is the screen at full size`));
    for (const k of [5, 6]) assert.match(lines[k], new RegExp(`^image ${k} of 6: desk\\.screenshot \\(PNG .*\\), not attached: over the bound of 4 images a message\\. You cannot see it\\.$`));
    assert.equal((await chat.evaluate(() => window.chat.sentImages(0))).length, 4);
    await options.close();
    await chat.close();
  });

  test('a page that takes no images: the model reads that the image could not be attached, and the result still goes', async () => {
    setScreen('plain', 1280, 800);
    const chat = await env.newPage(plain.url('/chat.html'));
    const options = await armFromOptions(env, { source: '.assistant', destination: '#prompt', autoSend: true, sendButton: '#send', debounceMs: SETTLE });
    await waitFor(async () => /✗ This page takes no images/.test(await options.locator('#attachTarget-match').textContent()), { what: 'the live check' });
    await chat.evaluate((c) => window.chat.stream(c), call('desk.screenshot', { screen: 'plain' }));
    const { json, note } = split((await waitForSent(chat, 1, 40_000))[0]);
    assert.equal(json.ok, true);
    assert.match(note, /^The image of this result could not be attached to this message:\nimage 1 of 1: desk\.screenshot \(1280×800 PNG .*\), not attached: this page shows no way to attach images: no file input, drop zone or attach button near the input\. You cannot see it\.$/);
    await options.close();
    await chat.close();
  });
});
