// An Allow button of the approval window takes only a deliberate act (issue
// 22): keys typed before the window appeared, held across its opening, or
// pressed in its first moments never approve. These play the attack against
// DeliberateAct, the rule the window applies (tests/e2e/approvals.test.js
// plays it against the real window).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARMING_DELAY_MS, DeliberateAct, KEY_QUIET_MS } from '../../../bridge/core/approval.js';

/** A window shown and focused at t=0. */
function opened() {
  const a = new DeliberateAct();
  a.shown(0);
  a.focus(0);
  return a;
}

test('a pointer click counts only once the window has been shown for the arming delay', () => {
  const a = opened();
  assert.equal(a.pointerAllows(ARMING_DELAY_MS - 1), false);
  assert.equal(a.pointerAllows(ARMING_DELAY_MS), true);
  assert.equal(new DeliberateAct().pointerAllows(10_000), false, 'never before it is shown');
  a.shown(5000); // a confirmation step shows new buttons: they arm anew
  assert.equal(a.pointerAllows(5000 + ARMING_DELAY_MS - 1), false);
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
