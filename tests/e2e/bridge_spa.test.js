// The chat bridge on a single-page chat app (fixtures/sites/spa.html: routes
// after '#', a 15-message window, each reply's element swapped when
// streaming ends, virtualised scrolling, conversations switched in place,
// hashed CSS-module class names, a stop button hidden rather than removed),
// set up with Pick as a person would. Every reply that arrives runs — the
// same call again in later turns (an agent loop repeating a screenshot), in
// a new conversation — and nothing old runs: not an old conversation
// switched to, not replies scrolled back into view, not the page's replies
// when the bridge starts again; each reply not run says why on the badge and
// on the options page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { ackCount, armedIn, badgeText, judged, lastAck, waitForSent } from './lib/bridge.js';

const REPLY = '.markdown-body';
const SCREENSHOT = JSON.stringify({ capability: 'computer.screenshot', arguments: { bytes: 64 } });
const click = (i) => JSON.stringify({ capability: 'computer.click', arguments: { x: i, y: i } });

let env;
let site;

before(async () => {
  site = await serve();
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], sites: [site.origin] });
});

after(async () => {
  await env?.close();
  await site?.close();
});

/** The person types text into the chat input and presses Enter. */
async function say(chat, text) {
  const sent = (await chat.evaluate(() => window.chat.sent.length)) + 1;
  await chat.locator('textarea').fill(text);
  await chat.locator('textarea').press('Enter');
  await waitForSent(chat, sent);
}

/** The badge's title on the tab showing the chat. */
async function badgeTitle(chat) {
  return env.evalInWorker(async (u) => {
    const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === u);
    return chrome.action.getTitle({ tabId: tab.id });
  }, chat.url());
}

/**
 * Picks a field on the options page by clicking target (a locator in the chat
 * page); returns the selector and what the page outlined ("<label>: matches N …").
 */
async function pick(options, chat, label, target) {
  await options.getByRole('button', { name: `Pick ${label}` }).click();
  await chat.locator('gnosis-pick').waitFor({ state: 'attached' });
  const box = await target.boundingBox();
  await chat.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const shown = await chat.locator('gnosis-matches [role=status]', { hasText: `${label}: matches` }).textContent();
  const selector = await waitFor(async () => options.getByLabel(label, { exact: true }).inputValue(), { what: `picked ${label}` });
  return { selector, shown };
}

describe('a single-page chat app', () => {
  let chat;
  let options;
  const screenshots = () => env.calls().filter((c) => c.tool === 'screenshot').length;
  const clicks = () => env.calls().filter((c) => c.tool === 'click').map((c) => c.arguments.x);

  before(async () => {
    chat = await env.newPage(site.url('/sites/spa.html'));
    // Enter in the replica sends; a first exchange, so Pick sees two replies beside the person's messages.
    for (const [q, a] of [['hello', 'Hi! How can I help?'], ['what can you do?', 'I can run tools on your desktop.']]) {
      await say(chat, q);
      await chat.evaluate((t) => window.chat.stream(t, { tokenMs: 1 }), a);
    }
    options = await env.openOptions();
    await options.locator('body[data-ready]').waitFor();
  });

  test('Pick makes selectors that keep working: every assistant message, the send button (not its label), the input', async () => {
    const { selector: source, shown } = await pick(options, chat, 'Extract from', chat.locator(REPLY).last());
    // The assistant's turns apart from the person's (a stem without the user's stem), then the text inside.
    assert.match(source, /^\[class\*="chat_chat-message__"\]:not\(\[class\*="chat_chat-message-user__"\]\) \S+$/);
    assert.doesNotMatch(source, /nth-of-type/);
    await waitFor(async () => /✓ matches 2 elements/.test(await options.locator('#source-match').textContent()), { what: 'the check counts both replies' });
    assert.equal(shown, 'Extract from: matches 2 elements', 'the page outlines the messages, with their count');

    // The send button is disabled while the input is empty; a click on its label picks the button.
    const send = await pick(options, chat, 'Send button', chat.getByText('Send', { exact: true }));
    assert.equal(send.selector, '[class*="chat_chat-input-send__"]');
    assert.equal((await pick(options, chat, 'Inject into', chat.locator('textarea'))).selector, '[class*="chat_chat-input__"]');

    // The stop button is in the page but hidden: typed, it reads as "not replying now".
    const streaming = options.getByLabel('Still replying while', { exact: true });
    await streaming.fill('[class*="chat_chat-stop__"]');
    await streaming.dispatchEvent('change');
    await waitFor(async () => /matches 1 hidden element: not replying now/.test(await options.locator('#streaming-match').textContent()), { what: 'hidden stop button' });

    // A selector naming one message is flagged.
    const extract = options.getByLabel('Extract from', { exact: true });
    await extract.fill('[class*="chat_chat-message__"]:not([class*="chat_chat-message-user__"]):last-child .markdown-body');
    await waitFor(async () => /⚠ matches only 1 element/.test(await options.locator('#source-match').textContent()), { what: 'one-element flag' });
    assert.ok(await options.locator('#source-match.warn').count());
    await extract.fill(source);
    await extract.dispatchEvent('change');

    await options.getByLabel('Auto-send', { exact: true }).check();
    await options.getByRole('button', { name: 'Start', exact: true }).click();
    await waitFor(async () => (await options.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed' });
  });

  test('an agent loop repeating the same screenshot call runs it every turn, past the 15-message window', async () => {
    for (let i = 1; i <= 10; i++) {
      const sent = await chat.evaluate(() => window.chat.sent.length);
      await chat.evaluate((c) => window.chat.stream(c), SCREENSHOT);
      await waitFor(() => screenshots() === i, { what: `screenshot ${i}` });
      await waitForSent(chat, sent + 1);
      await chat.evaluate((c) => window.chat.stream(c), click(i));
      await waitFor(() => clicks().length === i, { what: `click ${i}` });
      await waitForSent(chat, sent + 2);
    }
    assert.equal(await chat.locator(REPLY).count(), 15, 'the page shows a window of 15 messages');
    assert.equal(new URL(chat.url()).pathname, '/sites/spa.html');
    // Prose in between, then the same call once more.
    await chat.evaluate(() => window.chat.stream('Done with that. Next I will look again.'));
    const sent = await chat.evaluate(() => window.chat.sent.length);
    await chat.evaluate((c) => window.chat.stream(c), SCREENSHOT);
    await waitFor(() => screenshots() === 11, { what: 'the screenshot after prose' });
    await waitForSent(chat, sent + 1);
    assert.deepEqual(clicks(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  test('a reply the site starts as the result goes out is judged done by its indicator, not by the quiet time', async () => {
    const sent = await chat.evaluate(() => window.chat.sent.length);
    const before = clicks().length;
    // The site answers the moment the bridge sends the result, while the bridge still confirms that send.
    await chat.evaluate((next) => {
      const push = window.chat.sent.push;
      window.chat.sent.push = function (...items) {
        window.chat.sent.push = push;
        const n = push.apply(this, items);
        setTimeout(() => window.chat.stream(next, { tokenMs: 2 }), 0);
        return n;
      };
    }, click(77));
    await chat.evaluate((c) => window.chat.stream(c), SCREENSHOT);
    await waitForSent(chat, sent + 2);
    assert.deepEqual(clicks().slice(before), [77]);
    const ack = await lastAck(env, site.origin);
    assert.deepEqual([ack.action, ack.ended], ['inject', 'indicator'], 'the second reply ended when its stop button went away');
  });

  test('a new conversation in place runs the same call; switching back to the old one runs nothing and says why', async () => {
    await chat.evaluate(() => window.chat.newChat());
    assert.equal(new URL(chat.url()).hash, '#/chat/2');
    await say(chat, 'take a screenshot please');
    const sent = await chat.evaluate(() => window.chat.sent.length);
    const shots = screenshots();
    await chat.evaluate((c) => window.chat.stream(c), SCREENSHOT);
    await waitFor(() => screenshots() === shots + 1, { what: 'the call in the new conversation' });
    await waitForSent(chat, sent + 1);

    // Back to the first conversation: its newest reply is a call, shown again.
    await notRun(() => chat.evaluate(() => window.chat.openChat(1)), /came into view without being written/);
    assert.equal(new URL(chat.url()).hash, '#/chat/1');
  });

  test('replies scrolled back into view (a virtualised list mounts them anew) run nothing', async () => {
    await notRun(() => chat.evaluate(() => window.chat.scrollBack(3)), /came into view without being written/);
    await notRun(() => chat.evaluate(() => window.chat.scrollToEnd()), /came into view without being written/);
    // The next reply after a message runs.
    await say(chat, 'go on');
    const sent = await chat.evaluate(() => window.chat.sent.length);
    const shots = screenshots();
    await chat.evaluate((c) => window.chat.stream(c), SCREENSHOT);
    await waitFor(() => screenshots() === shots + 1, { what: 'the call after scrolling' });
    await waitForSent(chat, sent + 1);
  });

  test('Start again runs nothing already on the page, and says why', async () => {
    await options.getByRole('button', { name: 'Stop', exact: true }).click();
    await waitFor(async () => (await options.locator('#armed-state').textContent()) === 'Stopped', { what: 'stopped' });
    await chat.evaluate((c) => window.chat.stream(c), SCREENSHOT);
    await notRun(async () => {
      await options.getByRole('button', { name: 'Start', exact: true }).click();
    }, /already on the page when the bridge started watching/);
  });

  for (const hide of ['display', 'visibility', 'zero']) {
    test(`a stop button left in the page but hidden (${hide}) does not hold the bridge back`, async () => {
      const page = await env.newPage(site.url(`/sites/spa.html?hide=${hide}`));
      await armedIn(env, page);
      await say(page, 'one more screenshot');
      const before = screenshots();
      await page.evaluate((c) => window.chat.stream(c), SCREENSHOT);
      await waitFor(() => screenshots() === before + 1, { what: `the call with the stop button hidden by ${hide}` });
      await waitForSent(page, 2);
      assert.equal(await page.locator('[class*="chat_chat-stop__"]').count(), 1, 'the stop button is still in the page');
      await page.close();
    });
  }

  /**
   * Does what may show an old reply, waits for the bridge's verdict on it
   * (anchoring "nothing ran"), and checks that the badge and the options
   * page say why.
   */
  async function notRun(act, why) {
    const before = await ackCount(env, site.origin);
    const ran = env.calls().length;
    await act();
    const verdict = await judged(env, site.origin, { after: before });
    assert.deepEqual([verdict.action, why.test(verdict.reason)], ['none', true], JSON.stringify(verdict));
    assert.equal(env.calls().length, ran, 'nothing ran');
    assert.equal(await badgeText(env, chat.url()), 'ON');
    assert.match(await badgeTitle(chat), new RegExp(`did not run the last reply: computer\\.\\w+: .*${why.source}`));
    await waitFor(async () => why.test(await options.locator('#last-event').textContent()), { what: 'the reason on the options page' });
    assert.match(await options.locator('#last-event').textContent(), /Last: did not run computer\.\w+: /);
  }
});
