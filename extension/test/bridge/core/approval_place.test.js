// The approval window opens where a page cannot predict (issue 29 item 1):
// never on the centred spot over the chat's window, and spread over it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OFF_CENTRE, SCATTER_GAP, approvalPlacement, approvalPlacements, grown, rectsApart, scatterButtons } from '../../../bridge/core/approval_place.js';

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

test('scattered buttons: inside the pad, apart from each other and from what to avoid, at places that vary over more than their size', () => {
  const pad = { width: 504, height: 200 };
  const boxes = [{ id: 'deny', width: 80, height: 36 }, { id: 'allow', width: 118, height: 36 }, { id: 'allow-session', width: 190, height: 36 }, { id: 'allow-always', width: 220, height: 36 }];
  const avoid = [{ left: 0, top: 0, right: 200, bottom: 100 }];
  const lefts = [];
  const tops = [];
  const firsts = new Set();
  for (let i = 0; i < 500; i++) {
    const at = scatterButtons(pad, boxes, { avoid: i % 2 ? avoid : [] });
    const rects = boxes.map((b) => ({ id: b.id, left: at[b.id].left, top: at[b.id].top, right: at[b.id].left + b.width, bottom: at[b.id].top + b.height }));
    for (const r of rects) {
      assert.ok(r.left >= SCATTER_GAP - 1 && r.top >= SCATTER_GAP - 1 && r.right <= pad.width - SCATTER_GAP + 1 && r.bottom <= pad.height - SCATTER_GAP + 1, `${r.id} outside the pad: ${JSON.stringify(r)}`);
      for (const q of rects) if (q !== r) assert.ok(rectsApart(r, q, SCATTER_GAP - 1), `${r.id} and ${q.id} too close`);
      if (i % 2) assert.ok(rectsApart(r, avoid[0]), `${r.id} on the spot to avoid`);
    }
    lefts.push(at.allow.left);
    tops.push(at.allow.top);
    firsts.add([...rects].sort((a, b) => a.top - b.top || a.left - b.left)[0].id);
  }
  assert.ok(Math.max(...lefts) - Math.min(...lefts) > 2 * 118, `Allow once's left varies over ${Math.max(...lefts) - Math.min(...lefts)} px`);
  assert.ok(Math.max(...tops) - Math.min(...tops) > 2 * 36, `its top over ${Math.max(...tops) - Math.min(...tops)} px`);
  assert.equal(firsts.size, 4, 'each button comes first (top left) in some window');
});

test('a pad too small to scatter: the buttons are stacked, in a random order, still apart', () => {
  const at = scatterButtons({ width: 240, height: 100 }, [{ id: 'a', width: 200, height: 40 }, { id: 'b', width: 200, height: 40 }, { id: 'c', width: 200, height: 40 }]);
  const tops = Object.values(at).map((p) => p.top).sort((x, y) => x - y);
  assert.deepEqual(tops, [SCATTER_GAP, SCATTER_GAP + 40 + SCATTER_GAP, SCATTER_GAP + 2 * (40 + SCATTER_GAP)]);
});

/**
 * The click game against a model of the window, for the strongest blind
 * player: one that knows where the window is to the pixel (a page could map
 * it from where its own mouse events stop) but cannot read it. It makes the
 * two clicks that win most often: the spot where Allow once is most often
 * found, then, among the windows where that found it, the spot where Yes is
 * most often found (a third press in the buttons' area would be the second
 * stray, which denies). The model: approve.css's answer area (504 x 200
 * above or below the details, at random), the confirmation's (504 x 430),
 * buttons of the sizes they have at 540 px.
 */
test('the best two clicks a player who knows the window but cannot read it can make allow far below 1 % of windows', () => {
  const PAD1 = { width: 504, height: 200 };
  const PAD2 = { width: 504, height: 430 };
  const boxes = [{ id: 'deny', width: 80, height: 36 }, { id: 'allow', width: 118, height: 36 }, { id: 'allow-session', width: 190, height: 36 }, { id: 'allow-always', width: 220, height: 36 }];
  const YES = { id: 'yes', width: 64, height: 36 };
  const BACK = { id: 'back', width: 70, height: 36 };
  const N = 12_000;
  const W = 540;
  const H = 700;
  const windows = [];
  for (let n = 0; n < N; n++) {
    const padTop = Math.random() < 0.5 ? 95 : 465;
    const a = scatterButtons(PAD1, boxes).allow;
    const allow = { left: 18 + a.left, top: padTop + a.top, right: 18 + a.left + 118, bottom: padTop + a.top + 36 };
    const inPad2 = { left: allow.left - 18, top: allow.top - 200, right: allow.right - 18, bottom: allow.bottom - 200 };
    const y = scatterButtons(PAD2, [YES, BACK], { avoid: [grown(inPad2, YES.width, YES.height)] }).yes;
    windows.push({ allow, yes: { left: 18 + y.left, top: 200 + y.top, right: 18 + y.left + YES.width, bottom: 200 + y.top + YES.height } });
  }
  const best = (rects) => {
    const cover = new Uint32Array(W * H);
    for (const r of rects) for (let y = r.top; y < r.bottom; y++) for (let x = r.left; x < r.right; x++) cover[y * W + x]++;
    let n = 0;
    let at = 0;
    for (let i = 0; i < cover.length; i++) if (cover[i] > n) { n = cover[i]; at = i; }
    return { n, x: at % W, y: Math.floor(at / W) };
  };
  const first = best(windows.map((w) => w.allow));
  const found = windows.filter((w) => first.x >= w.allow.left && first.x < w.allow.right && first.y >= w.allow.top && first.y < w.allow.bottom);
  const second = best(found.map((w) => w.yes));
  const p = (first.n / N) * (second.n / found.length);
  console.log(`the click game's best two clicks: Allow once found in ${(100 * first.n / N).toFixed(1)} % of windows, then Yes in ${(100 * second.n / found.length).toFixed(1)} % of those: ${(100 * p).toFixed(2)} % of windows`);
  assert.ok(p < 0.005, `${(100 * p).toFixed(2)} % of windows allowed`);
});
