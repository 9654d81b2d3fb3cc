// The click-fast game against the approval window (issues 29 and 38). A page
// that can read where its window is tells someone to "click as fast as you
// can" at the spot where a button will appear. Played here at full strength:
// a trusted click every 120 ms exactly where the button is, from the moment
// the window shows, with a pointer that stays put; on "Allow once", on
// "Allow for this session", and on through the confirmation a first Allow
// leads to. Nothing is approved: a click before the window arms, or from a
// pointer that never came in from outside, cannot allow, and the second
// such click denies the call; the confirmation's Yes is never within its
// own size of the button that led to it; the window is not centred over the
// chat. A person's act (the pointer comes in, moves onto Allow, clicks, then
// onto Yes, clicks) still approves.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EXTENSION_ORIGIN, launch } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armFromOptions, waitForProviders, waitForSent } from './lib/bridge.js';
import { approveIn, centreOf, clickGame, deliberateClick } from './lib/approval.js';

const settings = { source: '.assistant', destination: '#prompt', autoSend: true, sendButton: '#send', debounceMs: 300, maxConsecutive: 200 };
const APPROVE_URL = `${EXTENSION_ORIGIN}bridge/approval/approve.html`;
const STRAYS_DENIED = /^Denied: two clicks landed where they could not allow/;

describe('the click-fast game approves nothing', () => {
  let site;
  let env;
  let chat;
  let sentSoFar = 0;
  const placements = [];

  before(async () => {
    site = await serve();
    env = await launch({
      grantOrigins: ['http://127.0.0.1/*'], notes: true,
      policy: { origins: { [site.origin]: { ask: ['notes.write_note', 'notes.delete_note', 'notes.search_web'] } } },
    });
    chat = await env.newPage(site.url('/chat.html'));
    const page = await env.openOptions();
    await waitForProviders(page, 2);
    await page.reload();
    await armFromOptions(env, settings, { options: page });
  });
  after(async () => {
    await env?.close();
    await site?.close();
  });

  const notes = (tool, name) => env.notesCalls().filter((c) => c.tool === tool && c.arguments.name === name);
  /** Where the approval window opened, beside where a centred one would have. */
  const placement = (win) => env.evalInWorker(async (url) => {
    const all = await chrome.windows.getAll({ populate: true });
    const popup = all.find((w) => w.tabs.some((t) => t.url.startsWith(url)));
    const chatWin = all.find((w) => w.tabs.some((t) => t.url.includes('/chat.html')));
    // The window is made 540 px wide (APPROVAL_WINDOW); the harness's viewport emulation may report it otherwise.
    return { left: popup.left, top: popup.top, width: 540, centred: Math.round(chatWin.left + (chatWin.width - 540) / 2) };
  }, win.url());

  /** Streams a call; play(win) is the game and the person's act. Returns the parsed reply. */
  async function run(capability, args, play) {
    const opened = env.context.waitForEvent('page', { predicate: (p) => p.url().startsWith(APPROVE_URL), timeout: 20_000 });
    await chat.evaluate((c) => window.chat.stream(c), JSON.stringify({ capability, arguments: args }));
    const win = await opened;
    let failure = null;
    try {
      await play(win);
    } catch (err) {
      failure = err;
      if (!win.isClosed()) await win.close().catch(() => {});
    }
    const replies = await waitForSent(chat, ++sentSoFar, 30_000).catch((err) => { throw failure || err; });
    if (failure) throw failure;
    return JSON.parse(replies.at(-1));
  }

  /** What the window will say once answered (it closes 1.2 s later): {said}, caught as it is written, once watching. */
  async function outcomeOf(win) {
    // A window that closes without a word ends the wait too: the assertion then says so.
    const said = new Promise((resolve) => {
      win.on('console', (m) => { if (m.text().startsWith('outcome:')) resolve(m.text().slice('outcome:'.length)); });
      win.once('close', () => resolve('(the window closed without an outcome)'));
    });
    await win.evaluate(() => {
      const el = document.getElementById('outcome');
      const tell = () => { if (el.textContent) console.log(`outcome:${el.textContent}`); };
      new MutationObserver(tell).observe(el, { childList: true, characterData: true, subtree: true });
      tell();
    });
    return { said };
  }

  for (const [selector, what, tool] of [['#allow', 'Allow once', 'write_note'], ['#allow-session', 'Allow for this session', 'search_web']]) {
    test(`"${what}": clicks every 120 ms on it from the moment the window shows are denied at the second; nothing runs`, async () => {
      const name = `game-${tool}`;
      const reply = await run(`notes.${tool}`, tool === 'search_web' ? { query: name } : { name, text: 'x' }, async (win) => {
        await win.locator('body[data-ready]').waitFor();
        placements.push(await placement(win));
        const { said } = await outcomeOf(win);
        const game = await clickGame(env.context, win, () => selector);
        assert.match(await said, STRAYS_DENIED);
        await game.stop();
        assert.ok(game.clicks >= 2, `${game.clicks} clicks`);
      });
      assert.equal(reply.ok, false, JSON.stringify(reply));
      assert.equal(reply.details.reason, 'denied');
      assert.deepEqual(env.notesCalls().filter((c) => c.tool === tool), []);
    });
  }

  test('a first Allow made, the game goes on at its spot through the confirmation: Yes is elsewhere, and the clicks deny', async () => {
    const reply = await run('notes.delete_note', { name: 'destructive-game' }, async (win) => {
      placements.push(await placement(win));
      await win.locator('#allow-always:enabled').waitFor();
      const first = await centreOf(win, '#allow-always');
      await deliberateClick(win, '#allow-always');
      await win.locator('#confirm-text').waitFor();
      const yes = await centreOf(win, '#confirm-yes');
      const r = yes.rect;
      const w = r.right - r.left;
      const h = r.bottom - r.top;
      const apart = r.right + w <= first.rect.left || first.rect.right + w <= r.left || r.bottom + h <= first.rect.top || first.rect.bottom + h <= r.top;
      assert.ok(apart, `Yes ${JSON.stringify(r)} within its own size of the first button ${JSON.stringify(first.rect)}`);
      const { said } = await outcomeOf(win);
      const game = await clickGame(env.context, win, () => '#no-such-button', { x: first.x, y: first.y });
      assert.match(await said, STRAYS_DENIED);
      await game.stop();
    });
    assert.equal(reply.ok, false, JSON.stringify(reply));
    assert.deepEqual(notes('delete_note', 'destructive-game'), []);
  });

  test('in the confirmation, clicks on its words (outside the buttons\' area) deny too', async () => {
    const reply = await run('notes.delete_note', { name: 'confirm-words-game' }, async (win) => {
      await win.locator('#allow-always:enabled').waitFor();
      await deliberateClick(win, '#allow-always');
      await win.locator('#confirm-text').waitFor();
      assert.equal(await win.evaluate(() => document.getElementById('pad').contains(document.getElementById('confirm-title'))), false, 'the words are outside the buttons\' area');
      const { said } = await outcomeOf(win);
      const game = await clickGame(env.context, win, () => '#confirm-title');
      assert.match(await said, STRAYS_DENIED);
      await game.stop();
    });
    assert.equal(reply.ok, false, JSON.stringify(reply));
    assert.deepEqual(notes('delete_note', 'confirm-words-game'), []);
  });

  test('a person\'s act still approves: in from the edge, onto Allow once, a click, onto Yes, a click', async () => {
    const reply = await run('notes.write_note', { name: 'person', text: 'x' }, async (win) => {
      placements.push(await placement(win));
      await approveIn(win, '#allow');
    });
    assert.equal(reply.ok, true, JSON.stringify(reply));
    assert.equal(notes('write_note', 'person').length, 1);
  });

  test('the windows opened away from the spot a centred window would take', () => {
    assert.equal(placements.length, 4);
    for (const p of placements) assert.ok(Math.abs(p.left - p.centred) >= p.width / 4 - 1, `opened at ${JSON.stringify(p)}`);
  });
});
