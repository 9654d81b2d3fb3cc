// The approval window as a person uses it: the pointer comes into the
// window from its edge, moves onto the button in steps, as a mouse does,
// pauses, then clicks; every Allow is then confirmed with "Yes", placed
// elsewhere in the window (issue 38: the buttons are scattered at random,
// a click counts only once the pointer came in from outside and moved).
// And the attack the window must withstand: clicks every 120 ms at one spot,
// from the moment the window shows, with a pointer that stays put.

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The centre of an element in the window's viewport, or null while it is hidden or absent. */
export function centreOf(win, selector) {
  return win.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el || !el.getClientRects().length) return null;
    const r = el.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2, rect: { left: r.left, top: r.top, right: r.right, bottom: r.bottom } };
  }, selector).catch(() => null);
}

const at = new WeakMap(); // win -> where its pointer is

/**
 * Clicks a button the way a person does once it is armed: the first time in
 * a window the pointer comes in from the window's left edge, then it moves
 * onto the button in steps, and once the window has seen it there, clicks.
 * The window may close before the click returns.
 */
export async function deliberateClick(win, selector) {
  await win.locator(`${selector}:enabled`).waitFor();
  const to = await centreOf(win, selector);
  try {
    if (!at.has(win)) await win.mouse.move(1, to.y);
    await win.mouse.move(to.x, to.y, { steps: 12 });
    at.set(win, to);
    // The window has seen the pointer arrive on the button before it is pressed.
    await win.waitForFunction((sel) => document.querySelector(sel)?.matches(':hover'), selector, { polling: 'raf' });
    await win.mouse.down();
    await win.mouse.up();
  } catch (err) {
    if (!win.isClosed()) throw err;
  }
}

/** Allows in the window as a person does: the choice (Allow once, for this session, always), then Yes. */
export async function approveIn(win, choice = '#allow') {
  await deliberateClick(win, choice);
  await deliberateClick(win, '#confirm-yes');
}

/**
 * Starts the click-fast game against a window: a trusted click (CDP
 * Input.dispatchMouseEvent, pressed and released, no move) every 120 ms at
 * the centre of `target()`'s element, or at `fallback` until it shows.
 * Returns {stop(): Promise<number>} (the number of clicks made), `spot`,
 * `maxGapMs`, the longest time between two clicks (a loaded machine may
 * stretch it past the arming delay), and soonArmed(), the clicks that met an
 * enabled button while every click had come within 900 ms of the one before
 * and the first had met a disabled one (`lateStart` says, once it was asked,
 * that the window had armed before the first click)
 * (by the page's own event times, so a stalled test process cannot blur
 * them; after a longer gap the window may arm, as it would for a person who
 * paused, and the pointer rule alone keeps the clicks from allowing).
 * The buttons' state is read after the window has handled the press (the
 * listener is on the window's bubble phase, after its own capture-phase
 * handler): on a stalled renderer the arming timer may run before input
 * queued behind it, and the press then disables the buttons again at once.
 */
export async function clickGame(context, win, target, fallback = { x: 270, y: 560 }) {
  const cdp = await context.newCDPSession(win);
  const game = { clicks: 0, spot: { ...fallback }, running: true, maxGapMs: 0, lateStart: false };
  await win.evaluate(() => {
    const seen = [];
    window.__gnosisGameClicks = seen;
    window.addEventListener('pointerdown', (e) => {
      const button = document.elementFromPoint(e.clientX, e.clientY)?.closest('button');
      seen.push({ t: e.timeStamp, enabled: !!button && !button.disabled, id: button?.id || '' });
    });
  }).catch(() => {});
  game.soonArmed = async () => {
    const seen = await win.evaluate(() => window.__gnosisGameClicks || []);
    if (seen.length < game.clicks / 2) throw new Error(`the page saw ${seen.length} of the game's ${game.clicks} clicks`);
    // Once two clicks came a whole arming delay apart (a stalled machine), the window may arm and
    // stays armed: only the clicks before that gap must have met disabled buttons. A first click
    // that met an enabled button came after such a gap too (the window had armed before a loaded
    // test could start the game): then the pointer rule alone must refuse.
    game.lateStart = Boolean(seen[0]?.enabled);
    if (game.lateStart) return [];
    const gap = seen.findIndex((c, i) => i > 0 && c.t - seen[i - 1].t >= 900);
    return (gap < 0 ? seen : seen.slice(0, gap)).filter((c, i) => i > 0 && c.enabled);
  };
  // A window that closes (the call denied) may leave a CDP command unanswered: nothing waits past its closing.
  const closed = new Promise((resolve) => { if (win.isClosed()) resolve(); else win.once('close', resolve); });
  let last = 0;
  game.done = (async () => {
    while (game.running && !win.isClosed()) {
      const next = Date.now() + 120;
      if (last) game.maxGapMs = Math.max(game.maxGapMs, Date.now() - last);
      last = Date.now();
      const at = await Promise.race([centreOf(win, target()), closed]);
      if (at) game.spot = { x: at.x, y: at.y };
      for (const type of ['mousePressed', 'mouseReleased']) {
        await Promise.race([cdp.send('Input.dispatchMouseEvent', { type, x: game.spot.x, y: game.spot.y, button: 'left', buttons: type === 'mousePressed' ? 1 : 0, clickCount: 1 }).catch(() => {}), closed]);
      }
      game.clicks++;
      await sleep(Math.max(0, next - Date.now()));
    }
  })();
  game.stop = async () => {
    game.running = false;
    await Promise.race([game.done, closed]);
    await cdp.detach().catch(() => {});
    return game.clicks;
  };
  return game;
}

/**
 * Whether the window's answer area and everything else fit its viewport with
 * the answer area above the details and below them (the window picks one at
 * random): for each, the page's scroll height and where the area is.
 * Returns the placements that do not fit ([] when both do).
 */
export function unfitPlacements(win) {
  return win.evaluate(() => {
    const main = document.getElementById('approval');
    const pad = document.getElementById('pad');
    const details = document.getElementById('details');
    const home = pad.nextSibling;
    const bad = [];
    for (const where of ['top', 'bottom']) {
      if (where === 'top') main.insertBefore(pad, details);
      else main.append(pad);
      const r = pad.getBoundingClientRect();
      const s = document.scrollingElement;
      if (r.top < 0 || r.bottom > window.innerHeight || s.scrollHeight > s.clientHeight) bad.push({ where, pad: [r.top, r.bottom], height: window.innerHeight, scroll: s.scrollHeight });
    }
    main.insertBefore(pad, home);
    return bad;
  });
}
