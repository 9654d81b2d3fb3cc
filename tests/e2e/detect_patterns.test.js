// Auto-detection on the patterns real chat UIs showed it (issue 41) that the
// real UIs under fixtures/ do not have, on a page written here
// (fixtures/patterns_chat.html): a measuring copy of the input refilled at each
// keystroke off-screen, a model-name label heading each reply, the streamed
// reply remounted when it ends, a stop control that is a clickable div, and a
// "Run ↵" send button with a state class while the input is empty. A person
// types at their pace and clicks Run while the panel watches: every field is
// ticked and right, and "Use these" and Start alone run a call and send its
// result. Sent with Enter, the panel says so and offers sending results with
// Enter, which works; without a way to send, Start says results are not sent;
// and the live check refuses a send selector made of the empty input's state
// class, and takes its turn at the input with a prompt inserted meanwhile.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armedIn } from './lib/bridge.js';

const REPLY = 'Hello! I am the model, and this reply streams for a little while so the page can be watched.';
let site;
let other;
let env;

before(async () => {
  site = await serve();
  other = await serve();
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], policy: { origins: { [site.origin]: ['computer.echo'], [other.origin]: ['computer.echo'] } } });
});

after(async () => {
  await env?.close();
  await site?.close();
  await other?.close();
});

const panel = (chat) => chat.locator('gnosis-detect [role=dialog]');
const row = (chat, field) => panel(chat).locator(`li[data-field="${field}"]`);

async function open(on) {
  const chat = await env.newPage(on.url('/patterns_chat.html'));
  await chat.setViewportSize({ width: 1000, height: 700 });
  await chat.locator('.prompt').waitFor();
  const options = await env.openOptions(`?origin=${encodeURIComponent(on.origin)}&detect=1`);
  await options.locator('body[data-ready]').waitFor();
  await panel(chat).waitFor();
  return { chat, options };
}

async function type(chat, text) {
  await chat.locator('.prompt').click();
  await chat.keyboard.type(text, { delay: 40 });
}

describe('auto-detection on the patterns that misled it', () => {
  test('measuring copy, labels, a remounted reply, a div stop control and "Run ↵": every field ticked and right, and Use these alone runs a call', async () => {
    const { chat, options } = await open(site);
    await chat.evaluate((t) => window.patterns.queue(t), REPLY);
    await type(chat, 'hello there');
    // While the person types, the measuring copy grows; it is never proposed.
    assert.doesNotMatch(await row(chat, 'source').textContent(), /grew/);
    await chat.getByRole('button', { name: 'Run ↵' }).click();
    await waitFor(async () => /grew/.test(await row(chat, 'source').textContent()), { what: 'the replies proposed', timeoutMs: 15_000 });
    await waitFor(async () => /showed while the reply streamed/.test(await row(chat, 'streaming').textContent()), { what: 'the streaming sign', timeoutMs: 15_000 });
    for (const f of ['source', 'destination', 'sendButton', 'streaming']) assert.equal(await row(chat, f).locator('input').isChecked(), true, `${f}: ${await row(chat, f).textContent()}`);
    assert.match(await row(chat, 'sendButton').textContent(), /“Run ↵”: you clicked it to send/);
    assert.match(await row(chat, 'streaming').textContent(), /Seen while the reply streamed: <div class="halt on">, holding an icon, by the input/);
    for (const w of [360, 400, 480]) {
      await chat.setViewportSize({ width: w, height: 700 });
      await env.screenshot(chat, `detect_patterns_panel_${w}`);
    }
    await chat.setViewportSize({ width: 1000, height: 700 });
    await panel(chat).getByRole('button', { name: 'Use these' }).click();
    await waitFor(async () => /Filled in from the page: Extract from, Inject into, Send button, Still replying while\./.test(await options.locator('#detect-state').textContent()), { what: 'filled in' });

    // What was filled in names the right elements: the replies' bodies (after the remount), the input, Run, the div.
    const value = (label) => options.getByLabel(label, { exact: true }).inputValue();
    const source = await value('Extract from');
    assert.deepEqual(await chat.evaluate((css) => [...document.querySelectorAll(css)].map((el) => el.className), source), ['body'], `Extract from: ${source}`);
    const send = await value('Send button');
    assert.doesNotMatch(send, /--disabled/);
    await chat.locator('.prompt').fill('some text');
    assert.equal(await chat.evaluate((css) => [...document.querySelectorAll(css)].map((el) => el.textContent).join(), send), 'Run ↵', `Send button: ${send} with text in the input`);
    await chat.locator('.prompt').fill('');
    assert.equal(await chat.evaluate((css) => document.querySelector(css)?.className, await value('Still replying while')), 'halt');
    await waitFor(async () => /✓ matches 1 element/.test(await options.locator('#sendButton-match').textContent()), { what: 'the live check of Run' });

    await options.getByRole('button', { name: 'Start', exact: true }).click();
    await waitFor(async () => (await options.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed' });
    await armedIn(env, chat);
    const call = JSON.stringify({ capability: 'computer.echo', arguments: { text: 'from the patterns page' } });
    await chat.evaluate((c) => window.patterns.queue(c), call);
    await type(chat, 'run it');
    await chat.getByRole('button', { name: 'Run ↵' }).click();
    await waitFor(() => env.calls().some((c) => c.tool === 'echo' && c.arguments.text === 'from the patterns page'), { what: 'the call', timeoutMs: 15_000 });
    await waitFor(async () => (await chat.evaluate(() => window.patterns.sent())).some((m) => m.includes('from the patterns page') && m.includes('"ok"')), { what: 'the result sent' });
    await options.getByRole('button', { name: 'Stop', exact: true }).click();
    await options.close();
    await chat.close();
  });

  test('sent with Enter: the panel offers sending with Enter and results go out that way; without it, Start says results are not sent; a send selector of the empty state fails the live check', async () => {
    const { chat, options } = await open(other);
    // A page whose button has no name that says send: hide Run, so only Enter sends.
    await chat.evaluate(() => { document.querySelector('.n-button').style.display = 'none'; });
    await chat.evaluate((t) => window.patterns.queue(t), REPLY);
    await type(chat, 'hello there');
    await chat.keyboard.press('Enter');
    await waitFor(async () => /you sent with Enter/.test(await row(chat, 'sendButton').textContent()), { what: 'Enter said', timeoutMs: 15_000 });
    await waitFor(async () => /grew/.test(await row(chat, 'source').textContent()), { what: 'the replies proposed', timeoutMs: 15_000 });
    // Run is hidden and says nothing of sending: at most a guess, left unticked; sending with Enter is offered, ticked.
    assert.equal(await row(chat, 'sendButton').locator('input:checked').count(), 0, 'no button ticked');
    assert.equal(await row(chat, 'sendWithEnter').locator('input').isChecked(), true);
    await env.screenshot(chat, 'detect_patterns_enter');
    await panel(chat).getByRole('button', { name: 'Use these' }).click();
    await waitFor(async () => /^Filled in from the page: Extract from, Inject into, Still replying while, Send with Enter\. Left to Pick: Send button\.$/.test(await options.locator('#detect-state').textContent()), { what: 'the detect line' });
    assert.equal(await options.getByLabel('Send with Enter', { exact: true }).isChecked(), true);
    assert.equal(await options.getByLabel('Auto-send', { exact: true }).isChecked(), true, 'Auto-send follows sending with Enter');
    await options.getByRole('button', { name: 'Start', exact: true }).click();
    await waitFor(async () => (await options.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed' });
    assert.equal(await options.locator('#send-state').textContent(), 'Auto-send on: each result is sent with Enter');
    await armedIn(env, chat);
    const call = JSON.stringify({ capability: 'computer.echo', arguments: { text: 'sent with Enter' } });
    await chat.evaluate((c) => window.patterns.queue(c), call);
    await type(chat, 'run it');
    await chat.keyboard.press('Enter');
    await waitFor(async () => (await chat.evaluate(() => window.patterns.sent())).some((m) => m.includes('sent with Enter') && m.includes('"ok"')), { what: 'the result sent with Enter', timeoutMs: 20_000 });
    await options.getByRole('button', { name: 'Stop', exact: true }).click();

    // Neither a send button nor Enter: Start says results are not sent.
    await options.getByLabel('Send with Enter', { exact: true }).uncheck();
    await options.getByLabel('Send with Enter', { exact: true }).dispatchEvent('change');
    await options.getByRole('button', { name: 'Start', exact: true }).click();
    await waitFor(async () => /No Send button: each result is written into the chat input and not sent/.test(await options.locator('#send-state').textContent()), { what: 'said at Start' });
    await options.getByRole('button', { name: 'Stop', exact: true }).click();

    // The live check tries the send selector with the input empty and holding text.
    await chat.evaluate(() => { document.querySelector('.n-button').style.display = ''; });
    const field = options.getByLabel('Send button', { exact: true });
    await field.fill('.n-button--disabled');
    await field.dispatchEvent('change');
    await waitFor(async () => /✗ matches 1 only while the input is empty/.test(await options.locator('#sendButton-match').textContent()), { what: 'the state class refused' });
    assert.equal(await chat.locator('.prompt').inputValue(), '', 'the input is empty again after the check');
    await field.fill('.n-button');
    await field.dispatchEvent('change');
    await waitFor(async () => /✓ matches 1 element/.test(await options.locator('#sendButton-match').textContent()), { what: 'the button itself' });
    await options.close();
    await chat.close();
  });

  test('the live check of a send button and a prompt inserted meanwhile take turns at the input: the prompt stays', async () => {
    // A site of its own: nothing saved for it, and no check made there yet.
    const own = await serve();
    try {
      const { chat, options } = await open(own);
      await options.close();
      const text = 'the capability prompt, inserted while the send button is checked';
      // Both at once, the check first: its test text is written and emptied again before the prompt goes in.
      const [checked, inserted] = await env.evalInWorker(async ([url, text]) => {
        const [tab] = await chrome.tabs.query({ url });
        return Promise.all([
          chrome.tabs.sendMessage(tab.id, { type: 'bridge.check', selectors: { destination: '.prompt', sendButton: 'button.n-button' } }),
          chrome.tabs.sendMessage(tab.id, { type: 'bridge.insert', text, destination: '.prompt' }),
        ]);
      }, [own.url('/patterns_chat.html'), text]);
      assert.deepEqual([checked.results?.sendButton?.empty, checked.results?.sendButton?.withText, inserted.ok], [1, 1, true], JSON.stringify({ checked, inserted }));
      assert.equal(await chat.locator('.prompt').inputValue(), text);
      await chat.close();
    } finally {
      await own.close();
    }
  });
});
