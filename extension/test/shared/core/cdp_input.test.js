// The pure parts of the tab engine's actions (shared/core/cdp_input.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { actionSleep, dragPath, mouseEvent, scrollOutcome, TYPE_PIECE, typePieces, wheelEvent, withUrl } from '../../../shared/core/cdp_input.js';

test('a long Type goes in pieces of whole code points', () => {
  const text = '😀'.repeat(TYPE_PIECE + 1);
  const pieces = typePieces(text);
  assert.deepEqual(pieces.map((p) => [...p].length), [TYPE_PIECE, 1]);
  assert.equal(pieces.join(''), text);
  assert.deepEqual(typePieces(''), []);
});

test('a Drag ends at its end in even steps', () => {
  const path = dragPath({ x: 0, y: 0 }, { x: 100, y: 50 }, 4);
  assert.deepEqual(path, [{ x: 25, y: 12.5 }, { x: 50, y: 25 }, { x: 75, y: 37.5 }, { x: 100, y: 50 }]);
});

test('mouse and wheel events', () => {
  const cases = [
    [mouseEvent('mouseMoved', { x: 1, y: 2 }), { type: 'mouseMoved', x: 1, y: 2, button: 'none', buttons: 0, clickCount: 0 }],
    [mouseEvent('mousePressed', { x: 1, y: 2 }, { clickCount: 2 }), { type: 'mousePressed', x: 1, y: 2, button: 'left', buttons: 1, clickCount: 2 }],
    [wheelEvent({ x: 5, y: 5 }, 'down', { width: 300, height: 600 }), { type: 'mouseWheel', x: 5, y: 5, deltaX: 0, deltaY: 400 }],
    [wheelEvent({ x: 5, y: 5 }, 'left', { width: 300, height: 600 }), { type: 'mouseWheel', x: 5, y: 5, deltaX: -200, deltaY: 0 }],
  ];
  for (const [got, want] of cases) assert.deepEqual(got, want);
});

test('result texts: a scroll that moved or not, a URL that changed or not', () => {
  assert.equal(scrollOutcome({ x: 0, y: 0 }, { x: 0, y: 300 }), 'page scroll moved from (0,0) to (0,300)');
  assert.match(scrollOutcome({ x: 0, y: 0 }, { x: 0, y: 0 }), /did not scroll/);
  assert.deepEqual(withUrl({ text: 'clicked' }, 'https://a/', 'https://b/'), { text: 'clicked; the URL changed to https://b/', url: 'https://b/' });
  assert.deepEqual(withUrl({ text: 'clicked' }, 'https://a/', 'https://a/'), { text: 'clicked', url: 'https://a/' });
});

test('an action sleep already stopped rejects at once as stopped', async () => {
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(actionSleep(60_000, ac.signal), (e) => e.code === 'stopped' && /action was stopped/.test(e.message));
  await actionSleep(0);
});
