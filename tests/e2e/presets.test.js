// The presets on replicas of the major chat sites (fixtures/sites/, each
// reproducing its site's message containers, editor kind, send-button enabling
// and streaming sign), one browser, one origin per replica: the options page
// recognises the page by its structure, fills the preset in and checks it live;
// then the bridge waits out a reply that pauses while the site still shows it
// streaming, runs the call, writes the result into that site's editor and
// sends it, and runs the same call again in a second conversation. A preset
// whose elements are gone says so on the options page and the badge.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { ackCount, armPreset, badgeText, lastAck, waitForSent } from './lib/bridge.js';
import { PRESETS } from '../../extension/bridge/core/presets.js';

const SETTLE = 300;

const servers = {};
let broken;
let env;

before(async () => {
  for (const p of PRESETS) servers[p.id] = await serve();
  broken = await serve();
  const origins = Object.fromEntries([...Object.values(servers), broken].map((s) => [s.origin, ['computer.echo']]));
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], policy: { origins } });
});

after(async () => {
  await env?.close();
  for (const s of [...Object.values(servers), broken]) await s?.close();
});

const echoes = (site) => env.calls().filter((c) => c.tool === 'echo' && c.arguments.site === site);

// The presets run side by side, each on its own origin with its own tabs, as
// a person arming several chat sites at once (each keeps its arming: Start
// and Stop change the armed origins one at a time); the options page is
// opened for its site by ?origin=, not by which tab was used last.
describe('every preset on its replica', { concurrency: 5 }, () => {
  for (const preset of PRESETS) {
    test(`${preset.name}: recognised by its structure, waits for the reply to finish, injects, sends, and runs again in a new conversation`, async () => {
      const site = servers[preset.id];
      const chat = await env.newPage(site.url(`/sites/${preset.id}.html`));
      const options = await env.openOptions(`?origin=${encodeURIComponent(site.origin)}`);
      await options.locator('body[data-ready]').waitFor();
      await waitFor(async () => (await options.locator('#preset-state').textContent()) === `preset: ${preset.name}`, { what: `preset: ${preset.name}` });
      assert.equal(await options.getByLabel('Extract from', { exact: true }).inputValue(), preset.source);
      assert.equal(await options.getByLabel('Inject into', { exact: true }).inputValue(), preset.destination);
      assert.equal(await options.getByLabel('Auto-send', { exact: true }).isChecked(), true);
      await waitFor(async () => /✓ matches 1 element/.test(await options.locator('#destination-match').textContent()), { what: 'live check of the input' });
      await armPreset(env, preset.name, { debounceMs: SETTLE, options });

      const call = JSON.stringify({ capability: 'computer.echo', arguments: { site: preset.id } });
      if (preset.streaming) {
        // The reply holds a complete call for a while, but the site still
        // shows it streaming; it ends as prose, which is not a call.
        const after = await ackCount(env, site.origin);
        await chat.evaluate(([c, pauseMs]) => window.chat.stream(`${c} — that was only an example.`, { pauseAt: c.length, pauseMs }), [call, SETTLE * 4]);
        // The bridge judges the reply once it has finished: prose, nothing ran, not even during the pause.
        await waitFor(async () => {
          const ack = await lastAck(env, site.origin);
          return ack && ack.count > after && ack.reason !== 'baseline' && ack;
        }, { what: `${preset.id}: the verdict on the finished reply`, timeoutMs: 15_000 });
        assert.equal(echoes(preset.id).length, 0, 'nothing ran while the reply was streaming');
      }

      await chat.evaluate((c) => window.chat.stream(c), call);
      await waitFor(() => echoes(preset.id).length === 1, { what: `${preset.id} call` });
      const [reply] = await waitForSent(chat, 1);
      assert.equal(JSON.parse(reply).ok, true, reply);
      assert.equal(await chat.evaluate(() => window.chat.input()), '', 'the editor was emptied by the send');

      await chat.evaluate(() => window.chat.newChat());
      await chat.evaluate((c) => window.chat.stream(c), call);
      await waitFor(() => echoes(preset.id).length === 2, { what: `${preset.id} call in the second conversation` });
      const replies = await waitForSent(chat, 2);
      assert.equal(JSON.parse(replies[1]).ok, true);
      await options.close();
      await chat.close();
    });
  }
});

describe('a preset that no longer matches', () => {
  test('the options page and the badge say to pick the elements', async () => {
    const chat = await env.newPage(broken.url('/sites/chatgpt.html'));
    const options = await armPreset(env, 'ChatGPT', { debounceMs: SETTLE });
    await options.setViewportSize({ width: 900, height: 1100 });
    await waitFor(async () => /✓/.test(await options.locator('#destination-match').textContent()), { what: 'live check' });
    await env.screenshot(options.locator('#page'), 'options_preset_light');
    await options.emulateMedia({ colorScheme: 'dark' });
    await env.screenshot(options.locator('#page'), 'options_preset_dark');
    await options.emulateMedia({ colorScheme: 'light' });

    // The site changes its page: the input loses the id the preset looks for.
    const url = broken.url('/sites/chatgpt.html?changed=1');
    await chat.goto(url);
    await waitFor(async () => (await badgeText(env, url)) === '!', { what: 'error badge', timeoutMs: 10_000 });
    const title = await env.evalInWorker(async (u) => {
      const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === u);
      return chrome.action.getTitle({ tabId: tab.id });
    }, url);
    assert.match(title, /preset no longer matches this page: pick the elements/);
    await waitFor(async () => (await options.locator('#preset-state').textContent()) === 'ChatGPT: preset no longer matches this page: pick the elements', { what: 'mismatch on the options page' });
    await waitFor(async () => /preset no longer matches this page: pick the elements/.test(await options.locator('#form-error').textContent()), { what: 'the reason under Start' });
    assert.match(await chat.locator('gnosis-notice [role=alert]').textContent(), /preset no longer matches this page/);
    await env.screenshot(options.locator('#page'), 'options_preset_mismatch');

    // The fields stay editable: pointing Inject into at the new input clears the state.
    const inject = options.getByLabel('Inject into', { exact: true });
    await inject.fill('.composer-input-v2');
    await inject.dispatchEvent('change');
    await waitFor(async () => (await options.locator('#preset-state').textContent()) === 'preset: ChatGPT (edited)', { what: 'edited preset' });
    await waitFor(async () => /✓ matches 1 element/.test(await options.locator('#destination-match').textContent()), { what: 'the new input matches' });
    await options.close();
    await chat.close();
  });
});
