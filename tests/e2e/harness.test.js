// The harness itself: the extension loads in headless Chromium with its fixed
// id, the host registered in the profile answers native messages, the chat
// fixture behaves like a controlled chat composer.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { EXTENSION_ID, launch } from './lib/harness.js';
import { serve } from './lib/server.js';

let env;
let site;
before(async () => {
  site = await serve();
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'] });
});
after(async () => {
  await env?.close();
  await site?.close();
});

test('the extension loads with its fixed id', async () => {
  const worker = await env.worker();
  assert.equal(new URL(worker.url()).host, EXTENSION_ID);
});

test('the registered host answers health with the fake munim provider', async () => {
  const reply = await env.evalInWorker(() => chrome.runtime.sendNativeMessage('com.gnosis.host', { id: 1, method: 'health' }));
  assert.equal(reply.id, 1);
  assert.equal(reply.ok, true);
  assert.deepEqual(reply.providers.map((p) => p.prefix), ['computer']);
});

test('the seeded origin permission is granted', async () => {
  const granted = await env.evalInWorker((o) => chrome.permissions.contains({ origins: [o] }), `${site.origin}/*`);
  assert.equal(granted, true);
});

test('the chat fixture enables send only after real input events', async () => {
  const page = await env.newPage(site.url('/chat.html'));
  await page.evaluate(() => { document.getElementById('prompt').value = 'bare write'; });
  assert.equal(await page.isDisabled('#send'), true);
  await page.fill('#prompt', 'typed');
  assert.equal(await page.isDisabled('#send'), false);
  await page.click('#send');
  assert.deepEqual(await page.evaluate(() => window.chat.sent), ['typed']);
  await page.close();
});

test('the strict contenteditable fixture reverts direct DOM writes and accepts typing', async () => {
  const page = await env.newPage(site.url('/chat.html?variant=ce-strict'));
  await page.evaluate(() => { document.getElementById('editor').textContent = 'bare write'; });
  await page.waitForFunction(() => document.getElementById('editor').textContent === '');
  await page.click('#editor');
  await page.keyboard.type('hello');
  assert.equal(await page.evaluate(() => window.chat.input()), 'hello');
  assert.equal(await page.isDisabled('#send'), false);
  await page.close();
});

test('the browser runs with one list of disabled features: Playwright\'s, the harness\'s and a test\'s', async () => {
  const extra = await launch({ host: false, args: ['--disable-features=GnosisTestFeature'] });
  try {
    // The browser process: the one of this profile that has no --type.
    const argv = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map((pid) => {
      try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'); } catch { return []; }
    }).find((a) => a.includes(`--user-data-dir=${extra.userDataDir}`) && !a.some((x) => x.startsWith('--type=')));
    assert.ok(argv, 'the browser process of the profile');
    const lists = argv.filter((a) => a.startsWith('--disable-features='));
    assert.equal(lists.length, 1, `one --disable-features switch, got ${JSON.stringify(lists)}`);
    const features = lists[0].slice('--disable-features='.length).split(',');
    for (const f of ['PaintHolding', 'WebUIOmniboxPopup', 'GnosisTestFeature']) assert.ok(features.includes(f), `${f} in ${lists[0]}`);
    // No omnibox popup was built for the headless window.
    const cdp = await extra.context.browser().newBrowserCDPSession();
    const { targetInfos } = await cdp.send('Target.getTargets');
    assert.deepEqual(targetInfos.filter((t) => t.url.startsWith('chrome://omnibox')), []);
  } finally {
    await extra.close();
  }
});
