// What an action holds on a tab (shared/core/input_holds.js): tracked so a
// restarted worker can release it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { holdsAny, releases, track } from '../../../shared/core/input_holds.js';

test('what an action holds: presses are tracked and released where they were made, keys before buttons', () => {
  let h = track(undefined, 'Input.dispatchMouseEvent', { type: 'mouseMoved', x: 1, y: 1 });
  assert.equal(holdsAny(h), false);
  h = track(h, 'Input.dispatchMouseEvent', { type: 'mousePressed', x: 10, y: 20, button: 'left' });
  h = track(h, 'Input.dispatchKeyEvent', { type: 'rawKeyDown', key: 'Shift', code: 'ShiftLeft', windowsVirtualKeyCode: 16 });
  assert.equal(holdsAny(h), true);
  assert.deepEqual(releases(h), [
    ['Input.dispatchKeyEvent', { type: 'keyUp', key: 'Shift', code: 'ShiftLeft', windowsVirtualKeyCode: 16 }],
    ['Input.dispatchMouseEvent', { type: 'mouseReleased', button: 'left', x: 10, y: 20, clickCount: 1 }],
  ]);
  h = track(h, 'Input.dispatchKeyEvent', { type: 'keyUp', key: 'Shift', code: 'ShiftLeft' });
  h = track(h, 'Input.dispatchMouseEvent', { type: 'mouseReleased', x: 10, y: 20 });
  assert.equal(holdsAny(h), false);
  assert.deepEqual(releases(h), []);
});
