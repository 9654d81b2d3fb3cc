// The approval window opens where a page cannot predict (issue 29 item 1):
// never on the centred spot over the chat's window, and spread over it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OFF_CENTRE, approvalPlacement, approvalPlacements } from '../../../bridge/core/approval_place.js';

const SIZE = { width: 540, height: 700 };
const seq = (...xs) => { let i = 0; return () => xs[i++ % xs.length]; };

test('never within a quarter of its width of the centred position, for any random draw and any parent', () => {
  for (const parent of [{ left: 0, top: 0, width: 1920, height: 1080 }, { left: 200, top: 50, width: 1280, height: 800 }, { left: 10, top: 10, width: 600, height: 600 }, { left: 0, top: 0, width: 540, height: 700 }]) {
    const centred = parent.left + (parent.width - SIZE.width) / 2;
    for (let i = 0; i <= 20; i++) {
      for (let j = 0; j <= 4; j++) {
        const p = approvalPlacement(parent, SIZE, { random: seq(j / 4.0001, i / 20.0001, 0.5) });
        const off = Math.abs(p.left - centred);
        assert.ok(off >= SIZE.width * OFF_CENTRE - 1 || p.left === 0, `${JSON.stringify(parent)} ${i},${j}: ${off} px from the centre`);
        assert.ok(p.top >= Math.max(0, parent.top) && p.top <= parent.top + Math.max(0, parent.height - SIZE.height), `top ${p.top}`);
      }
    }
  }
});

test('spread over the chat\'s window: a thousand draws land on both sides and over most of the room', () => {
  const parent = { left: 0, top: 0, width: 1920, height: 1080 };
  const lefts = new Set();
  const tops = new Set();
  for (let i = 0; i < 1000; i++) {
    const p = approvalPlacement(parent, SIZE);
    lefts.add(Math.round(p.left / 50));
    tops.add(Math.round(p.top / 50));
  }
  assert.ok(lefts.size >= 20, `${lefts.size} distinct columns of 50 px`);
  assert.ok(tops.size >= 6, `${tops.size} distinct rows of 50 px`);
});

test('several waiting windows cascade', () => {
  const parent = { left: 100, top: 100, width: 1600, height: 1000 };
  const a = approvalPlacement(parent, SIZE, { random: () => 0.7 });
  const b = approvalPlacement(parent, SIZE, { random: () => 0.7, cascade: 28 });
  assert.deepEqual([b.left - a.left, b.top - a.top], [28, 28]);
});

test('the places to try: the random one first, then the other side, then each side at the least distance, none centred', () => {
  const parent = { left: 10, top: 10, width: 1280, height: 720 };
  const centred = 10 + (1280 - 540) / 2;
  const places = approvalPlacements(parent, SIZE, { random: seq(0.9, 0.5, 0) });
  assert.equal(places.length, 4);
  assert.ok(places[0].left > centred && places[1].left < centred, JSON.stringify(places));
  assert.deepEqual(places.slice(2).map((p) => Math.abs(p.left - centred)), [135, 135]);
  for (const p of places) assert.ok(Math.abs(p.left - centred) >= 135);
});
