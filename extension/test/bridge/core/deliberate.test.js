// An Allow button of the approval window takes only a deliberate act (issue
// 22): keys typed before the window appeared, held across its opening, or
// pressed in its first moments never approve. These play the attack against
// DeliberateAct, the rule the window applies (tests/e2e/approvals.test.js
// plays it against the real window).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARMING_DELAY_MS, DeliberateAct, ENTRY_EDGE_PX, KEY_QUIET_MS, MAX_STRAYS, MOVE_MIN_PX, rectsNear } from '../../../bridge/core/approval.js';

/** A window shown and focused at t=0, the pointer come in at its left edge (a 540 x 700 viewport). */
function opened() {
  const a = new DeliberateAct();
  a.shown(0);
  a.focus(0);
  a.came(2, 300, 540, 700);
  return a;
}

test('a pointer click counts once the window is armed and the pointer has moved inside it since the buttons showed', () => {
  const a = opened();
  a.pointerAt(100, 100);
  a.pointerAt(100 + MOVE_MIN_PX - 1, 100);
  assert.equal(a.pointerAllows(ARMING_DELAY_MS), false, 'less than the least move');
  a.pointerAt(100 + MOVE_MIN_PX, 100);
  assert.equal(a.pointerAllows(ARMING_DELAY_MS - 1), false, 'moved, but not armed yet');
  assert.equal(a.pointerAllows(ARMING_DELAY_MS), true, 'moved in while it armed, then a click: a person\'s act');
  assert.equal(new DeliberateAct().pointerAllows(10_000), false, 'never before it is shown');
  a.shown(5000); // a confirmation step shows new buttons: they arm anew, and the pointer must move again (the entry holds)
  assert.equal(a.pointerAllows(5000 + ARMING_DELAY_MS), false);
  a.pointerAt(108, 100);
  assert.equal(a.pointerAllows(5000 + ARMING_DELAY_MS), false, 'seen where it was: no move');
  a.pointerAt(108, 100 + MOVE_MIN_PX);
  assert.equal(a.pointerAllows(5000 + ARMING_DELAY_MS - 1), false);
  assert.equal(a.pointerAllows(5000 + ARMING_DELAY_MS), true);
});

test('the click-fast game: clicks every 120 ms at one spot from the moment the window shows never allow', () => {
  const a = new DeliberateAct();
  a.shown(0);
  for (let t = 0; t < 10_000; t += 120) {
    a.pointerAt(300, 520); // a click is seen at its spot
    assert.equal(a.pointerAllows(t), false, `click at ${t} ms`);
    a.press(t);
  }
  assert.equal(a.armed(10_000), false, 'each click started the wait again');
  // The clicks pause long enough to arm, then go on at the same spot: the pointer never moved.
  for (let t = 12_000; t < 20_000; t += 120) {
    a.pointerAt(300, 520);
    assert.equal(a.pointerAllows(t), false, `click at ${t} ms after a pause`);
    a.press(t);
  }
});

test('a click too soon wants a new move: moving, clicking early, then clicking again where it rests does not allow', () => {
  const a = opened();
  a.pointerAt(10, 300);
  a.pointerAt(200, 500); // moved onto the button
  a.pointerAt(200, 500);
  assert.equal(a.press(600), true, 'clicked before arming: the wait starts again');
  assert.equal(a.pointerAllows(600 + ARMING_DELAY_MS), false, 'armed again, but the pointer has not moved since the press');
  a.pointerAt(204, 507);
  assert.equal(a.pointerAllows(600 + ARMING_DELAY_MS), true);
  const b = opened();
  b.pointerAt(300, 520); // first seen after arming, and clicked right there
  assert.equal(b.press(3000), false, 'a press once armed does not restart the wait');
  assert.equal(b.pointerAllows(3000), false);
});

test('a press before arming restarts the wait; the keyboard quiet counts from it too', () => {
  const a = opened();
  assert.equal(a.press(900), true);
  assert.equal(a.armed(1500), false);
  assert.equal(a.armed(900 + ARMING_DELAY_MS), true);
  assert.equal(a.keyAllows('Enter', 900 + KEY_QUIET_MS - 1), false);
  assert.equal(new DeliberateAct().press(5), false, 'nothing shown: nothing to restart');
});

test('rectsNear tells a confirmation button on the spot of the first one', () => {
  const always = { left: 280, top: 500, right: 520, bottom: 532 };
  assert.equal(rectsNear({ left: 300, top: 510, right: 500, bottom: 546 }, always), true);
  assert.equal(rectsNear({ left: 20, top: 510, right: 260, bottom: 546 }, always, 12), false);
  assert.equal(rectsNear({ left: 20, top: 510, right: 272, bottom: 546 }, always, 12), true, 'within the margin');
  assert.equal(rectsNear({ left: 280, top: 560, right: 520, bottom: 596 }, always, 12), false);
});

test('Tab then Space, or Tab then Enter, right as the window opens: refused', () => {
  for (const key of [' ', 'Enter']) {
    const a = opened();
    a.keyDown('Tab', 40);
    a.keyUp('Tab', 60);
    assert.equal(a.keyAllows(key, 80), false, key);
    // Still refused a second later: the Tab and its release were keys too.
    assert.equal(a.keyAllows(key, 60 + KEY_QUIET_MS - 1), false, key);
  }
});

test('a key held from before the window opened never allows: repeats are refused and keep the window from going quiet', () => {
  const a = opened();
  for (let t = 30; t < 4000; t += 33) {
    assert.equal(a.keyAllows('Enter', t, true), false);
    a.keyDown('Enter', t);
  }
  a.keyUp('Enter', 4000);
  assert.equal(a.keyAllows('Enter', 4000 + KEY_QUIET_MS - 1), false);
  assert.equal(a.keyAllows('Enter', 4000 + KEY_QUIET_MS), true);
});

test('another key held down refuses the act; so does a window without the focus', () => {
  const a = opened();
  a.keyDown('Shift', 10);
  assert.equal(a.keyAllows('Enter', 10 + KEY_QUIET_MS), false);
  a.keyUp('Shift', 20);
  assert.equal(a.keyAllows('Enter', 20 + KEY_QUIET_MS), true);
  a.blur();
  assert.equal(a.keyAllows('Enter', 10_000), false);
  a.focus(10_000);
  assert.equal(a.keyAllows('Enter', 10_000 + KEY_QUIET_MS - 1), false, 'focus regained: quiet counts from then');
  assert.equal(a.keyAllows('Enter', 10_000 + KEY_QUIET_MS), true);
});

test('the deliberate path: the window opens, the person reads, tabs to Allow, pauses, presses Enter', () => {
  const a = opened();
  assert.equal(a.keyAllows('Enter', KEY_QUIET_MS - 1), false, 'the first moments');
  a.keyDown('Tab', 3000);
  a.keyUp('Tab', 3080);
  assert.equal(a.keyAllows('Enter', 3080 + KEY_QUIET_MS), true);
});

test('a click counts only once the pointer came into the window from outside: a window that opened under it is not entered', () => {
  const a = new DeliberateAct();
  a.shown(0);
  // The window opened under a resting pointer, which then wanders inside it (a page's dot game).
  a.came(270, 400, 540, 700);
  for (let i = 0; i < 20; i++) a.pointerAt(270 + 6 * Math.cos(i), 400 + 6 * Math.sin(i));
  a.pointerAt(300, 420);
  assert.equal(a.pointerAllows(5000), false, 'never entered');
  assert.equal(a.pointerWhyNot(5000), 'entry');
  // It leaves the window and comes back: now it entered.
  a.left();
  a.came(300, 400, 540, 700);
  a.pointerAt(320, 430);
  assert.equal(a.pointerAllows(5000), true);
  // First seen at the window's edge: it came in across it.
  const b = new DeliberateAct();
  b.shown(0);
  b.came(540 - ENTRY_EDGE_PX, 350, 540, 700);
  b.pointerAt(0, 0);
  b.pointerAt(50, 50);
  assert.equal(b.pointerAllows(ARMING_DELAY_MS), true);
  // Seen inside first, then "coming over" again (a node under it went away): not an entry.
  const c = new DeliberateAct();
  c.shown(0);
  c.came(200, 200, 540, 700);
  c.came(2, 200, 540, 700);
  assert.equal(c.entered, false);
});

test('a press that could not allow uses up the entry, and the third denies', () => {
  const a = opened();
  a.pointerAt(10, 300);
  a.pointerAt(200, 500);
  assert.equal(a.pointerWhyNot(500), 'soon');
  assert.equal(a.stray(), false, 'a first stray');
  assert.equal(a.pointerAllows(2000), false, 'the entry is used up');
  assert.equal(a.pointerWhyNot(2000), 'entry');
  a.left();
  a.came(100, 2, 540, 700);
  a.pointerAt(220, 520);
  assert.equal(a.pointerAllows(2000), true, 'out and in again, moved: a person\'s act');
  for (let i = 2; i < MAX_STRAYS; i++) assert.equal(a.stray(), false);
  assert.equal(a.stray(), true, `stray number ${MAX_STRAYS} denies`);
});
