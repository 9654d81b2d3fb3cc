// The click-fast game against the approval window (issue 29 item 1). A page
// that can read where its window is tells someone to "click as fast as you
// can" at the spot where a button will appear. Played here at full strength:
// a trusted click every 120 ms exactly where the button is, from the moment
// the window shows, with a pointer that stays put; for "Allow for this
// session", "Always allow on this site" and a destructive tool's second
// confirmation. Nothing is approved: clicks before arming start the wait
// again, a pointer that never moved never allows, the confirmation's button
// is not where the first one was, and the window is not centred over the
// chat. A person's deliberate act (the pointer moves in, rests, clicks)
// still approves.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EXTENSION_ORIGIN, launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armFromOptions, waitForProviders, waitForSent } from './lib/bridge.js';
import { centreOf, clickGame, deliberateClick } from './lib/approval.js';

const settings = { source: '.assistant', destination: '#prompt', autoSend: true, sendButton: '#send', debounceMs: 300, maxConsecutive: 200 };
const APPROVE_URL = `${EXTENSION_ORIGIN}bridge/approval/approve.html`;
const CLICKS = 30; // 3.6 s of clicks: over three arming delays

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

  /** Plays the game at the button's spot: clicks from the moment the window shows, then more after a pause long enough to arm. */
  async function playGame(win, selector, what) {
    const game = await clickGame(env.context, win, () => selector);
    await waitFor(() => game.clicks >= CLICKS, { what: `${CLICKS} clicks`, timeoutMs: 30_000 });
    // Clicks closer together than the arming delay keep the window from arming (a loaded machine may space them wider).
    await game.stop();
    assert.deepEqual(await game.soonArmed(), [], `${what}: the clicks kept the window from arming`);
    assert.equal(await win.locator('#outcome').textContent(), '', `${what}: no answer`);
    if (game.maxGapMs < 900 && !game.lateStart) assert.match(await win.locator('#key-hint').textContent(), /Clicks and keys this soon never allow a call/);
    // The clicks pause until the window arms, then go on at the same spot: the pointer never moved.
    await win.locator(`${selector}:enabled`).waitFor();
    const again = await clickGame(env.context, win, () => selector);
    await waitFor(() => again.clicks >= 10, { what: '10 more clicks', timeoutMs: 30_000 });
    await again.stop();
    assert.equal(await win.locator('#outcome').textContent(), '', `${what}: no answer after the pause either`);
    assert.match(await win.locator('#key-hint').textContent(), /pointer that has not moved never allows/);
    return game.spot;
  }

  test('"Allow for this session": the game approves nothing; moving in, resting and clicking does', async () => {
    const reply = await run('notes.write_note', { name: 'session-game', text: 'x' }, async (win) => {
      await playGame(win, '#allow-session', 'for this session');
      assert.deepEqual(notes('write_note', 'session-game'), []);
      placements.push(await placement(win));
      await deliberateClick(win, '#allow-session');
    });
    assert.equal(reply.ok, true, JSON.stringify(reply));
    assert.equal(notes('write_note', 'session-game').length, 1);
  });

  test('"Always allow on this site": the game approves nothing; the deliberate act does', async () => {
    const reply = await run('notes.search_web', { query: 'always-game' }, async (win) => {
      await playGame(win, '#allow-always', 'always');
      assert.deepEqual(env.notesCalls().filter((c) => c.tool === 'search_web'), []);
      placements.push(await placement(win));
      await deliberateClick(win, '#allow-always');
    });
    assert.equal(reply.ok, true, JSON.stringify(reply));
    assert.ok(env.config().policy.origins[site.origin].allow.includes('notes.search_web'));
  });

  test('a destructive tool: the game approves nothing, the confirmation is elsewhere, and clicks at the old spot do not confirm', async () => {
    const reply = await run('notes.delete_note', { name: 'destructive-game' }, async (win) => {
      const spot = await playGame(win, '#allow-always', 'destructive, first step');
      const always = await centreOf(win, '#allow-always');
      placements.push(await placement(win));
      await deliberateClick(win, '#allow-always');
      await win.locator('#confirm-always').waitFor();
      // The game goes on at the spot where "Always allow" was, through the confirmation.
      const game = await clickGame(env.context, win, () => '#no-such-button', spot);
      const yes = await centreOf(win, '#confirm-always-yes');
      const r = yes.rect;
      const a = always.rect;
      const apart = r.right <= a.left || a.right <= r.left || r.bottom <= a.top || a.bottom <= r.top;
      assert.ok(apart, `the confirmation ${JSON.stringify(r)} sits on the first button's spot ${JSON.stringify(a)}`);
      await waitFor(() => game.clicks >= CLICKS, { what: `${CLICKS} clicks`, timeoutMs: 30_000 });
      await game.stop();
      assert.deepEqual(await game.soonArmed(), [], 'the clicks kept the confirmation from arming');
      assert.equal(await win.locator('#outcome').textContent(), '');
      assert.deepEqual(notes('delete_note', 'destructive-game'), []);
      for (const width of [360, 400, 480]) {
        await win.setViewportSize({ width, height: 700 });
        const y = await centreOf(win, '#confirm-always-yes');
        await win.evaluate(() => { document.getElementById('choices').hidden = false; });
        const x = await centreOf(win, '#allow-always');
        await win.evaluate(() => { document.getElementById('choices').hidden = true; });
        const near = !(y.rect.right <= x.rect.left || x.rect.right <= y.rect.left || y.rect.bottom <= x.rect.top || x.rect.bottom <= y.rect.top);
        assert.equal(near, false, `at ${width} px the confirmation overlaps the first button's spot`);
        await env.screenshot(win, `approval_confirm_apart_${width}`);
      }
      await win.setViewportSize({ width: 540, height: 700 });
      await deliberateClick(win, '#confirm-always-yes');
    });
    assert.equal(reply.ok, true, JSON.stringify(reply));
    assert.ok(env.config().policy.origins[site.origin].allow.includes('notes.delete_note'));
  });

  test('the windows opened away from the spot a centred window would take', () => {
    assert.equal(placements.length, 3);
    for (const p of placements) assert.ok(Math.abs(p.left - p.centred) >= p.width / 4 - 1, `opened at ${JSON.stringify(p)}`);
  });
});
