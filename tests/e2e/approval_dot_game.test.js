// The slow wandering-dot game against the approval window, headed (issue 38
// item 2), as the audit played it: the chat page draws a dot and asks for a
// click on it every 1.2 s; the dot circles 6 px around one spot; the person
// follows it with the real pointer (xdotool on an Xvfb display, so every
// event is the X server's) and clicks when asked. The page knows which side
// of its window each approval window opened on — here better than any page
// could: the test tells it the window's exact place — and puts the spot
// where the buttons lie in that window: in the lower answer area, the upper
// one, or the window's middle, in turn. It waits for the window to arm
// before the first click. For at least 50 windows nothing is approved: the
// buttons are at new random places in every window, a click on Allow only
// leads to a Yes that is never within its own size of it, and clicks that
// cannot allow deny the call.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { EXTENSION_ORIGIN, launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armFromOptions, waitForProviders, waitForSent } from './lib/bridge.js';
import { desktopMissing, startDesktop } from './lib/desktop.js';

const settings = { source: '.assistant', destination: '#prompt', autoSend: true, sendButton: '#send', debounceMs: 300, maxConsecutive: 500 };
const APPROVE_URL = `${EXTENSION_ORIGIN}bridge/approval/approve.html`;
const WINDOWS = 50;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('the slow wandering-dot game approves nothing, headed, over 50 windows', { skip: desktopMissing() || false }, () => {
  let desk;
  let site;
  let env;
  let chat;
  let pointer; // one xdotool reading commands from its stdin, run as they come: no process per move
  const xdo = (...args) => pointer.stdin.write(`${args.join(' ')}\n`);
  /** The person's pointer to (x, y) of the screen (kept on it). */
  const moveTo = (x, y) => xdo('mousemove', Math.max(0, Math.min(desk.width - 1, Math.round(x))), Math.max(0, Math.min(desk.height - 1, Math.round(y))));

  before(async () => {
    desk = await startDesktop({ width: 1600, height: 900 });
    pointer = spawn('xdotool', ['-'], { env: desk.env, stdio: ['pipe', 'ignore', 'inherit'] });
    site = await serve();
    env = await launch({
      display: desk.display, grantOrigins: ['http://127.0.0.1/*'], notes: true,
      policy: { askTimeout: '8s', origins: { [site.origin]: { ask: ['notes.write_note'] } } },
    });
    chat = await env.newPage(site.url('/chat.html'));
    const options = await env.openOptions();
    await waitForProviders(options, 2);
    await options.reload();
    await armFromOptions(env, settings, { options });
    await options.close();
    await chat.bringToFront();
    // The page's dot, which it moves and asks to be clicked, and where its own mouse events put the pointer.
    await chat.evaluate(() => {
      const dot = document.createElement('div');
      dot.id = 'game-dot';
      Object.assign(dot.style, { position: 'fixed', width: '14px', height: '14px', borderRadius: '7px', background: '#e33', zIndex: 99, pointerEvents: 'none', transform: 'translate(-7px,-7px)' });
      document.body.append(dot);
      window.addEventListener('mousemove', (e) => { window.__offset = { x: e.screenX - e.clientX, y: e.screenY - e.clientY }; });
    });
  });
  after(async () => {
    pointer?.stdin.end();
    await env?.close();
    await site?.close();
    await desk?.close();
  });

  test('each window is denied or left to time out; the tool never runs', async () => {
    // Calibrate the page's screen offset from its own mouse events (as the page would).
    const win = await env.evalInWorker(async () => (await chrome.windows.getAll()).find((w) => w.type === 'normal' && w.focused) || (await chrome.windows.getLastFocused()));
    moveTo(win.left + 200, win.top + 300);
    moveTo(win.left + 210, win.top + 310);
    const offset = await waitFor(() => chat.evaluate(() => window.__offset || null), { what: 'the page saw the pointer' });
    const tally = { windows: 0, pressesInWindow: 0, reachedYes: 0, strays: 0, timedOut: 0, denied: 0 };
    let sent = 0;
    for (let n = 0; n < WINDOWS; n++) {
      const opened = env.context.waitForEvent('page', { predicate: (p) => p.url().startsWith(APPROVE_URL), timeout: 30_000 });
      await chat.evaluate((c) => window.chat.stream(c), JSON.stringify({ capability: 'notes.write_note', arguments: { name: `dot-${n}`, text: 'x' } }));
      const popup = await opened;
      const shownAt = Date.now();
      tally.windows++;
      // What the window saw: trusted presses, and whether the confirmation ever showed.
      await popup.waitForFunction(() => document.body?.dataset.ready === 'true', null, { timeout: 15_000 }).catch(() => {});
      await popup.evaluate(() => {
        window.__game = { presses: 0, yes: false };
        window.addEventListener('pointerdown', (e) => { if (e.isTrusted) window.__game.presses++; }, true);
        new MutationObserver(() => { if (!document.getElementById('confirm-text').hidden) window.__game.yes = true; })
          .observe(document.getElementById('confirm-text'), { attributes: true });
      }).catch(() => {});
      // Side detection, better than a page's: the window's exact place. The spot: where its buttons lie.
      const where = await env.evalInWorker(async (url) => {
        const w = (await chrome.windows.getAll({ populate: true })).find((x) => x.tabs.some((t) => t.url.startsWith(url)));
        return w && { left: w.left, top: w.top, width: w.width, height: w.height };
      }, APPROVE_URL);
      const spots = [[0.37, 0.86], [0.37, 0.3], [0.5, 0.55]];
      const [fx, fy] = spots[n % spots.length];
      const spot = { x: Math.round(where.left + fx * where.width), y: Math.round(where.top + fy * where.height) };
      // The dot wanders slowly from where the pointer is to the spot, then circles 6 px around it; the person follows.
      const from = await chat.evaluate(() => window.__last || null) || { x: spot.x - 300, y: spot.y + 120 };
      let t = 0;
      let nextClick = shownAt + 1300;
      let seen = null; // what the window saw, read while it is open
      while (!popup.isClosed() && Date.now() - shownAt < 20_000) {
        t++;
        const k = Math.min(1, t / 8);
        const x = Math.round(from.x + (spot.x - from.x) * k + (k === 1 ? 6 * Math.cos(t / 2) : 0));
        const y = Math.round(from.y + (spot.y - from.y) * k + (k === 1 ? 6 * Math.sin(t / 2) : 0));
        await chat.evaluate(({ x, y, o }) => {
          const d = document.getElementById('game-dot');
          d.style.left = `${x - o.x}px`;
          d.style.top = `${y - o.y}px`;
          window.__last = { x, y };
        }, { x, y, o: offset }).catch(() => {});
        moveTo(x, y);
        if (Date.now() >= nextClick) {
          xdo('click', 1);
          nextClick += 1200;
        }
        seen = await popup.evaluate(() => ({ ...window.__game, outcome: document.getElementById('outcome').textContent })).catch(() => seen);
        await sleep(60);
      }
      if (seen) {
        tally.pressesInWindow += seen.presses ? 1 : 0;
        tally.reachedYes += seen.yes ? 1 : 0;
        tally.strays += /two clicks landed/.test(seen.outcome) ? 1 : 0;
      }
      const replies = await waitForSent(chat, ++sent, 40_000);
      const reply = JSON.parse(replies.at(-1));
      assert.equal(reply.ok, false, `window ${n + 1} approved: ${JSON.stringify(reply)}`);
      if (reply.details?.reason === 'timeout') tally.timedOut++;
      else tally.denied++;
      if (!popup.isClosed()) await popup.close().catch(() => {});
    }
    console.log(`dot game over ${tally.windows} windows: clicks landed in ${tally.pressesInWindow}, Allow then Yes reached in ${tally.reachedYes}, denied for stray clicks ${tally.strays}, denied ${tally.denied}, timed out ${tally.timedOut}; approved 0`);
    assert.ok(tally.windows >= WINDOWS);
    assert.deepEqual(env.notesCalls().filter((c) => c.tool === 'write_note'), [], 'the tool never ran');
    assert.ok(tally.pressesInWindow >= WINDOWS / 2, `the game's clicks reached only ${tally.pressesInWindow} windows: it was not played`);
  });
});
