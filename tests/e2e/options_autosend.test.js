// Auto-send on a page no preset knows: off while no send button is set, on
// once one is picked (a result then goes out instead of waiting in the
// input), the person's own choice kept, and the run bar saying at Start
// whether each result is sent. The run bar is pictured at 360, 400 and 480 px
// (options_autosend_<state>_<width>.png).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { storedSettings, waitForSent } from './lib/bridge.js';

let site;
let env;
before(async () => {
  site = await serve();
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], sites: [site.origin] });
});
after(async () => {
  await env?.close();
  await site?.close();
});

async function shootBar(options, state) {
  for (const width of [360, 400, 480]) {
    await options.setViewportSize({ width, height: 700 });
    await env.screenshot(options.locator('#run'), `options_autosend_${state}_${width}`);
    const clipped = await options.$eval('#send-state', (el) => el.scrollWidth > el.clientWidth + 1 || el.getBoundingClientRect().right > document.documentElement.clientWidth);
    assert.equal(clipped, false, `${state} at ${width} px: the send state is whole`);
  }
}

test('Auto-send turns on once a send button is picked, the run bar says so at Start, and the result is sent', async () => {
  const chat = await env.newPage(site.url('/chat.html'));
  const options = await env.openOptions();
  await options.locator('body[data-ready]').waitFor();
  assert.equal(await options.locator('#preset-state').isVisible(), false, 'no preset knows this page');
  const auto = options.getByLabel('Auto-send', { exact: true });
  const sendState = options.locator('#send-state');
  assert.equal(await auto.isChecked(), false);
  assert.equal(await sendState.textContent(), 'Auto-send off: you send each result');

  for (const [label, css] of [['Extract from', '.assistant'], ['Inject into', '#prompt']]) {
    const field = options.getByLabel(label, { exact: true });
    await field.fill(css);
    await field.dispatchEvent('change');
  }
  // Pick the send button on the page.
  await options.getByRole('button', { name: 'Pick Send button' }).click();
  await chat.locator('gnosis-pick').waitFor({ state: 'attached' });
  await chat.evaluate(() => { document.querySelector('#prompt').value = 'x'; document.querySelector('#prompt').dispatchEvent(new Event('input', { bubbles: true })); });
  const box = await chat.locator('#send').boundingBox();
  await chat.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await chat.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await waitFor(async () => (await options.getByLabel('Send button', { exact: true }).inputValue()) !== '', { what: 'picked send button' });
  await waitFor(() => auto.isChecked(), { what: 'Auto-send on once a send button is set' });
  assert.equal(await sendState.textContent(), 'Auto-send on: each result is sent');
  await chat.evaluate(() => { document.querySelector('#prompt').value = ''; document.querySelector('#prompt').dispatchEvent(new Event('input', { bubbles: true })); });

  await options.getByRole('button', { name: 'Start', exact: true }).click();
  await waitFor(async () => (await options.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed' });
  assert.equal(await sendState.textContent(), 'Auto-send on: each result is sent');
  await shootBar(options, 'on');

  await chat.evaluate(() => window.chat.stream('{"capability": "computer.echo", "arguments": {"text": "hi"}}'));
  const [reply] = await waitForSent(chat, 1);
  assert.equal(JSON.parse(reply).ok, true, 'the result was sent, not left in the input');

  // The person unticks it: their choice stands, even when the send button is set again.
  await options.getByRole('button', { name: 'Stop', exact: true }).click();
  await auto.uncheck();
  await waitFor(async () => (await sendState.textContent()).startsWith('Auto-send off'), { what: 'run bar: off' });
  const button = options.getByLabel('Send button', { exact: true });
  await button.fill('');
  await button.dispatchEvent('change');
  await button.fill('button#send');
  await button.dispatchEvent('change');
  const stored = () => storedSettings(env, site.origin);
  await waitFor(async () => { const s = await stored(); return s?.sendButton === 'button#send'; }, { what: 'the settings saved' });
  assert.equal((await stored()).autoSend, false, 'setting the send button again leaves the untick');
  await options.reload();
  await options.locator('body[data-ready]').waitFor();
  assert.equal(await auto.isChecked(), false, 'the unticked Auto-send is kept');
  assert.equal(await sendState.textContent(), 'Auto-send off: you send each result');
  await shootBar(options, 'off');
  await options.close();
  await chat.close();
});
