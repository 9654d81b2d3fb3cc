// Arming a chat page no preset fits, on a real open-source chat UI
// (fixtures/realchat: assistant-ui's own pre-styled thread, built from its npm
// packages by tests/setup.sh): "Arm this site" opens the options page, which
// has the page propose the input, the send button, the replies and the
// streaming sign, outlines them on the page and fills in what the person
// confirms; the reply seen streaming supplies what an empty conversation
// cannot show. Pick takes the disabled send button that ignores the pointer,
// not the form around it; and a send that did not happen (the Send button
// pointed at that form) is reported as not sent, with why.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launch, waitFor, REPO } from './lib/harness.js';
import { serve } from './lib/server.js';

const DIST = path.join(REPO, 'tests', 'e2e', 'fixtures', 'realchat', 'dist');
const CALL = JSON.stringify({ capability: 'computer.echo', arguments: { text: 'from the real chat UI' } });

let site;
let fresh; // the same UI on another origin, with no settings yet
let env;

before(async () => {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) throw new Error(`${DIST} is not built: run tests/setup.sh (npm ci and the build in tests/e2e/fixtures/realchat)`);
  site = await serve({ dir: DIST });
  fresh = await serve({ dir: DIST });
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], policy: { origins: { [site.origin]: ['computer.echo'], [fresh.origin]: ['computer.echo'] } } });
});

after(async () => {
  await env?.close();
  await site?.close();
  await fresh?.close();
});

async function openChat(on = site) {
  const chat = await env.newPage(on.url('/index.html'));
  await chat.locator('.aui-composer-input').waitFor();
  return chat;
}

/** Types a message into the chat as a person would and sends it with Enter. */
async function say(chat, text) {
  const input = chat.getByPlaceholder('Write a message...');
  await input.click();
  await chat.keyboard.type(text);
  await chat.keyboard.press('Enter');
}

const panel = (chat) => chat.locator('gnosis-detect [role=dialog]');
const row = (chat, field) => panel(chat).locator(`li[data-field="${field}"]`);

describe('auto-detection on a real chat UI', () => {
  test('Arm this site proposes the elements, shows them on the page, learns the rest from a reply, and the bridge runs a call with them', async () => {
    const chat = await openChat();
    await chat.setViewportSize({ width: 900, height: 700 });
    // The setup page's "Arm this site" link for a site no preset fits.
    const options = await env.openOptions(`?origin=${encodeURIComponent(site.origin)}&detect=1`);
    await options.locator('body[data-ready]').waitFor();
    await waitFor(async () => /Confirm on the page/.test(await options.locator('#detect-state').textContent()), { what: 'detection started' });
    await panel(chat).waitFor();
    // An empty conversation: the input and the send button, not yet the replies.
    await waitFor(async () => /textarea/.test(await row(chat, 'destination').textContent()), { what: 'the input proposed' });
    assert.match(await row(chat, 'sendButton').textContent(), /“Send”/);
    assert.equal(await row(chat, 'destination').locator('input').isChecked(), true);
    assert.match(await row(chat, 'source').textContent(), /send a message here/);
    for (const w of [360, 400, 480]) {
      await chat.setViewportSize({ width: w, height: 700 });
      await env.screenshot(chat, `detect_panel_empty_${w}`);
    }
    await chat.setViewportSize({ width: 900, height: 700 });

    // The person sends a message; the reply streams, with its Cancel button meanwhile.
    await chat.evaluate(() => window.realchat.queue('Hello! I am the assistant, and this reply streams for a little while so the page can be watched.'));
    await say(chat, 'hello there');
    await waitFor(async () => /grew/.test(await row(chat, 'source').textContent()), { what: 'the replies proposed', timeoutMs: 15_000 });
    await waitFor(async () => /Cancel/.test(await row(chat, 'streaming').textContent()), { what: 'the streaming sign proposed', timeoutMs: 15_000 });
    for (const w of [360, 400, 480]) {
      await chat.setViewportSize({ width: w, height: 700 });
      await env.screenshot(chat, `detect_panel_found_${w}`);
    }
    // Hide shrinks the panel to see the page under it; Show brings the list back.
    await panel(chat).getByRole('button', { name: 'Hide' }).click();
    await waitFor(async () => /Gnosis found 4 of 4 parts/.test(await panel(chat).textContent()), { what: 'the small panel' });
    for (const w of [360, 400, 480]) {
      await chat.setViewportSize({ width: w, height: 700 });
      await env.screenshot(chat, `detect_panel_small_${w}`);
    }
    await panel(chat).getByRole('button', { name: 'Show' }).click();
    await chat.setViewportSize({ width: 900, height: 700 });
    for (const f of ['destination', 'sendButton', 'source', 'streaming']) assert.equal(await row(chat, f).locator('input').isChecked(), true, `${f} ticked`);
    // The page itself cannot confirm (or untick) for the person: its clicks are not trusted.
    await chat.evaluate(() => {
      const root = document.querySelector('gnosis-detect').shadowRoot;
      root.querySelector('li[data-field="source"] input').click();
      root.querySelector('button.primary').click();
    });
    assert.equal(await panel(chat).count(), 1, 'the panel is still open');
    assert.equal(await row(chat, 'source').locator('input').isChecked(), true, 'the page could not untick a field');
    assert.match(await options.locator('#detect-state').textContent(), /Confirm on the page/);
    await panel(chat).getByRole('button', { name: 'Use these' }).click();
    await waitFor(async () => /Filled in from the page: Extract from, Inject into, Send button, Still replying while\./.test(await options.locator('#detect-state').textContent()), { what: 'the form filled in' });
    assert.equal(await chat.locator('gnosis-detect').count(), 0, 'the panel is gone');

    // What was filled in picks the right elements of the page.
    const value = (label) => options.getByLabel(label, { exact: true }).inputValue();
    const source = await value('Extract from');
    const kinds = await chat.evaluate((css) => [...document.querySelectorAll(css)].map((el) => !!el.closest('.aui-assistant-message-root') && !el.closest('.aui-user-message-root')), source);
    assert.deepEqual(kinds, [true], `Extract from (${source}) matches the one reply only`);
    assert.equal(await chat.evaluate((css) => document.querySelector(css)?.className, await value('Inject into')), 'aui-composer-input');
    assert.equal(await chat.evaluate((css) => document.querySelector(css)?.matches('button.aui-composer-send'), await value('Send button')), true);
    assert.match(await value('Still replying while'), /Cancel|cancel/);
    await waitFor(async () => /✓ matches 1 element/.test(await options.locator('#destination-match').textContent()), { what: 'live check of the input' });
    for (const w of [360, 400, 480]) {
      await options.setViewportSize({ width: w, height: 900 });
      await env.screenshot(options.locator('#page'), `detect_options_${w}`);
    }

    // Armed with what was found (and Auto-send), a reply holding a call runs, and its result is sent.
    await options.getByLabel('Auto-send', { exact: true }).check();
    await options.getByLabel('Auto-send', { exact: true }).dispatchEvent('change');
    await options.getByRole('button', { name: 'Start', exact: true }).click();
    await waitFor(async () => (await options.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed' });
    const before = env.calls().filter((c) => c.tool === 'echo').length;
    await chat.evaluate((c) => window.realchat.queue(c), CALL);
    await say(chat, 'run the echo, please');
    await waitFor(() => env.calls().filter((c) => c.tool === 'echo').length === before + 1, { what: 'the echo call', timeoutMs: 15_000 });
    await waitFor(async () => (await chat.evaluate(() => window.realchat.sent())).some((m) => m.includes('from the real chat UI') && m.includes('"ok"')), { what: 'the result sent as a message' });
    assert.equal(await chat.locator('.aui-composer-input').inputValue(), '', 'the input was emptied by the send');
    await options.getByRole('button', { name: 'Stop', exact: true }).click();
    await options.close();
    await chat.close();
  });
});

describe('Pick and a send that did not happen, on the real chat UI', () => {
  test('Pick takes the disabled send button that ignores the pointer, not the form around it', async () => {
    const chat = await openChat(fresh);
    assert.equal(await chat.locator('.aui-composer-send').evaluate((b) => b.disabled && getComputedStyle(b).pointerEvents), 'none', 'the library disables the button and lets the pointer through');
    const options = await env.openOptions(`?origin=${encodeURIComponent(fresh.origin)}`);
    await options.locator('body[data-ready]').waitFor();
    // Nothing set and no preset: finding the elements is offered first.
    await waitFor(async () => /No preset fits this site/.test(await options.locator('#detect-state').textContent()), { what: 'the offer' });
    assert.match(await options.locator('#detect').getAttribute('class'), /primary/);
    for (const w of [360, 400, 480]) {
      await options.setViewportSize({ width: w, height: 700 });
      await env.screenshot(options.locator('#page'), `detect_offer_${w}`);
    }
    // The proposal panel is open; choosing Pick instead closes it, and nothing is filled in.
    await options.getByRole('button', { name: 'Find them on the page' }).click();
    await panel(chat).waitFor();
    await options.getByRole('button', { name: 'Pick Send button' }).click();
    await waitFor(async () => /Cancelled: nothing was changed/.test(await options.locator('#detect-state').textContent()), { what: 'detection cancelled by Pick' });
    assert.equal(await chat.locator('gnosis-detect').count(), 0);
    await chat.locator('gnosis-pick').waitFor({ state: 'attached' });
    const box = await chat.locator('.aui-composer-send').boundingBox();
    // What the browser's own hit test finds there: the form, not the button.
    assert.equal(await chat.evaluate(([x, y]) => document.elementFromPoint(x, y)?.localName, [box.x + box.width / 2, box.y + box.height / 2]), 'form');
    await chat.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await chat.mouse.down();
    await chat.mouse.up();
    const picked = options.getByLabel('Send button', { exact: true });
    await waitFor(async () => !!(await picked.inputValue()), { what: 'a selector picked' });
    assert.equal(await chat.evaluate((css) => [...document.querySelectorAll(css)].map((el) => el.localName + (el.matches('.aui-composer-send') ? '.send' : '')).join(), await picked.inputValue()), 'button.send');
    await waitFor(async () => /✓ matches 1 element/.test(await options.locator('#sendButton-match').textContent()), { what: 'the live check' });
    await options.close();
    await chat.close();
  });

  test('a Send button pointed at the form around the button: the result stays in the input, and the bridge says it could not send and why', async () => {
    const chat = await openChat();
    const options = await env.openOptions(`?origin=${encodeURIComponent(site.origin)}`);
    await options.locator('body[data-ready]').waitFor();
    const fill = async (label, v) => {
      const el = options.getByLabel(label, { exact: true });
      await el.fill(v);
      await el.dispatchEvent('change');
    };
    await fill('Extract from', '.aui-assistant-message-content');
    await fill('Inject into', '.aui-composer-input');
    await fill('Send button', 'form.aui-composer-root');
    await fill('Still replying while', '.aui-composer-cancel');
    await options.getByLabel('Auto-send', { exact: true }).check();
    await options.getByLabel('Auto-send', { exact: true }).dispatchEvent('change');
    // The live check already says it is the form around the button.
    await waitFor(async () => /✗ matches a <form> around a button/.test(await options.locator('#sendButton-match').textContent()), { what: 'the live check flags the container' });
    await options.getByRole('button', { name: 'Start', exact: true }).click();
    await waitFor(async () => (await options.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed' });
    const before = env.calls().filter((c) => c.tool === 'echo').length;
    await chat.evaluate((c) => window.realchat.queue(c), CALL);
    await say(chat, 'run the echo');
    await waitFor(() => env.calls().filter((c) => c.tool === 'echo').length === before + 1, { what: 'the echo call', timeoutMs: 15_000 });
    const notice = chat.locator('gnosis-notice [role=alert]');
    await waitFor(async () => /could not send/.test((await notice.textContent().catch(() => '')) || ''), { what: 'the page says it could not send', timeoutMs: 15_000 });
    assert.match(await notice.textContent(), /matches <form class="aui-composer-root">, which holds the button “Send”.*not a button.*still in the input/);
    assert.match(await chat.locator('.aui-composer-input').inputValue(), /from the real chat UI/, 'the result sits in the input');
    assert.equal((await chat.evaluate(() => window.realchat.sent())).filter((m) => m.includes('from the real chat UI')).length, 0, 'nothing was sent');
    await waitFor(async () => /could not send|not a button/.test(await options.locator('#last-event').textContent()), { what: 'the options page says so' });
    assert.doesNotMatch(await options.locator('#last-event').textContent(), /delivered \(send\)/);
    await env.screenshot(chat, 'detect_not_sent');
    for (const w of [360, 400, 480]) {
      await options.setViewportSize({ width: w, height: 800 });
      await env.screenshot(options, `detect_not_sent_options_${w}`);
    }
    await options.getByRole('button', { name: 'Stop', exact: true }).click();
    await options.close();
    await chat.close();
  });
});
